import { describe, expect, it } from 'vitest';
import { argumentsCutOff, isCutOffJson } from '../../src/cut-off-call.js';

const failed = (message: string, errorType?: string) => ({ kind: 'failed' as const, errorType, message });

describe('isCutOffJson', () => {
  it('is true for JSON that stops before it closes: mid-string, mid-key, after a comma, nested', () => {
    expect(isCutOffJson('{"path": "report.md", "content": "# Results\\n\\nThe first run scored 0.8 and')).toBe(true);
    expect(isCutOffJson('{"path": "report.md", "con')).toBe(true);
    expect(isCutOffJson('{"rows": [[1, 2], [3,')).toBe(true);
    expect(isCutOffJson('  [{"a": "escaped \\" quote')).toBe(true);
  });

  it('is false for complete JSON, for malformed JSON and for text that is not JSON', () => {
    expect(isCutOffJson('{"path": "report.md"}')).toBe(false);
    expect(isCutOffJson('{"a": 1}} trailing')).toBe(false);
    expect(isCutOffJson('{"a": [1, 2}')).toBe(false);
    expect(isCutOffJson('path=report.md')).toBe(false);
    expect(isCutOffJson('"just a string')).toBe(false);
    expect(isCutOffJson('')).toBe(false);
  });
});

describe('argumentsCutOff', () => {
  it('decides by the recorded arguments: the raw text, bare or as the one value of a wrapper', () => {
    const error = failed('SyntaxError: Unterminated string in JSON at position 8190');
    expect(argumentsCutOff(true, '{"path": "a.md", "content": "abc', error)).toBe(true);
    expect(argumentsCutOff(true, { raw: '{"path": "a.md", "content": "abc' }, error)).toBe(true);
    // Parsed arguments were not cut off, whatever the tool's own error says (it may parse a file).
    expect(argumentsCutOff(true, { path: 'config.json' }, failed('Unexpected end of JSON input'))).toBe(false);
    expect(argumentsCutOff(true, { raw: '{"a": 1}' }, error)).toBe(false);
  });

  it('decides by a JSON parse failure when the arguments were not recorded', () => {
    expect(argumentsCutOff(false, undefined, failed('Unterminated string in JSON at position 41', 'SyntaxError'))).toBe(true);
    expect(argumentsCutOff(false, undefined, failed('Invalid input for tool write_file: JSON parsing failed', 'AI_InvalidToolInputError'))).toBe(true);
    expect(argumentsCutOff(false, undefined, failed('Invalid JSON input for tool write_file', 'ModelBehaviorError'))).toBe(true);
    expect(argumentsCutOff(false, undefined, failed('Expecting value: line 1 column 81 (char 80)', 'JSONDecodeError'))).toBe(true);
    expect(argumentsCutOff(false, undefined, failed('ECONNREFUSED 127.0.0.1:5432', 'Error'))).toBe(false);
    expect(argumentsCutOff(false, undefined, { kind: 'returned', result: 'ok', outcome: undefined })).toBe(false);
  });
});
