import { describe, expect, it } from 'vitest';
import { errorDigest } from '../../../src/fingerprint/index.js';

const kind = (type: string | undefined, message: string, retryable?: boolean) => errorDigest(type, message, undefined, retryable).failure;

describe('failure kind', () => {
  it('reads outages, timeouts and rate limits as transient', () => {
    expect(kind('Error', 'connect ECONNREFUSED 127.0.0.1:5432')).toBe('transient');
    expect(kind('HTTPError', 'HTTP 503 Service Unavailable')).toBe('transient');
    expect(kind('HTTPError', 'status 429: slow down')).toBe('transient');
    expect(kind('TimeoutError', 'the operation was aborted')).toBe('transient');
    expect(kind('Error', 'Request timed out after 30000 ms')).toBe('transient');
    expect(kind('APIError', 'Rate limit reached for requests')).toBe('transient');
    expect(kind('Error', 'The server is overloaded, please try again later')).toBe('transient');
  });

  it('reads syntax, schema, validation, not-found and permission errors as deterministic', () => {
    expect(kind('ToolError', 'ERROR:\nParameter `old_str` is required for command: str_replace.')).toBe('deterministic');
    expect(kind('SyntaxError', 'incomplete input')).toBe('deterministic');
    expect(kind('HTTPError', 'HTTP 404 Not Found')).toBe('deterministic');
    expect(kind('HTTPError', 'status 422 Unprocessable Entity')).toBe('deterministic');
    expect(kind('PermissionError', 'permission denied')).toBe('deterministic');
    expect(kind('ToolError', 'Error: flight HAT030 not available on date 2024-05-13')).toBe('deterministic');
  });

  it("lets the tool's own retryable flag win", () => {
    expect(kind('HTTPError', 'HTTP 503 Service Unavailable', false)).toBe('deterministic');
    expect(kind('ValidationError', 'field "email" is required', true)).toBe('transient');
  });

  it('looks for retry words in the head of a long message only (a traceback quotes code)', () => {
    expect(kind('AssertionError', `assert total == 3\n${'x'.repeat(400)} # retry later`)).toBe('deterministic');
  });
});
