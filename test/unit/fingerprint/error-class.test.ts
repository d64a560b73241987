import { describe, expect, it } from 'vitest';
import { ERRNO_PHRASES, errorClass, errorHash, maskErrorMessage } from '../../../src/fingerprint/index.js';

const cls = (message: string) => errorClass(maskErrorMessage(message));

describe('errorHash compares failures by their class', () => {
  const same: [string, string, string][] = [
    // What cp, mv, install, ln, bash and rsync print when the target directory is not writable.
    ['cp and mv refused', "cp: cannot create regular file '/usr/local/bin/lgctl': Permission denied", "mv: cannot move 'build/lgctl' to '/usr/local/bin/lgctl': Permission denied"],
    ['rsync with its errno number', 'rsync: [receiver] mkstemp "/usr/local/bin/.lgctl.Xr2Lq0" failed: Permission denied (13)', 'bash: /usr/local/bin/lgctl: Permission denied'],
    ['errno name and strerror text', "EACCES: permission denied, open '/etc/a.conf'", '[Errno 13] Permission denied: \'/etc/b.conf\''],
    ['Go prints strerror in lower case', 'open /etc/a: permission denied', 'open /var/b: Permission denied'],
    ['missing files on different paths', "ENOENT: no such file or directory, open 'a.txt'", "cat: b.txt: No such file or directory"],
    ['errno aliases', 'read EWOULDBLOCK', 'read EAGAIN: resource temporarily unavailable'],
    ['the same refused endpoint', 'connect ECONNREFUSED 127.0.0.1:5432', 'could not connect: Connection refused (ECONNREFUSED) to 127.0.0.1:5432 after retry'],
    ['HTTP status, different URLs', '503 Server Error: Service Unavailable for url: https://api.example.com/a', 'HTTP 503 from https://api.example.com/b'],
    ['HTTP status in several spellings', 'Request failed with status code 429', 'HTTP/1.1 429 Too Many Requests'],
    [
      'Postgres: made-up relations, with the LINE context',
      'ERROR:  relation "sales" does not exist\nLINE 1: ...ate_trunc(\'month\', created_at) AS m, sum(amount) FROM sales GROUP...',
      'ERROR:  relation "revenue" does not exist\nLINE 1: ...ate_trunc(\'month\', created_at) AS m, sum(amount) FROM revenue GROUP...',
    ],
    ['dotted quoted names', "Table 'shop.sales' doesn't exist", "Table 'shop.revenue' doesn't exist"],
    ['volatile parts are masked before classifying', 'relation "t" does not exist at 2026-11-30T01:02:03Z', 'relation "u" does not exist at 2026-11-30T09:00:00Z'],
  ];
  it.each(same)('same: %s', (_name, a, b) => {
    expect(errorHash('ToolError', a)).toBe(errorHash('ToolError', b));
  });

  const different: [string, string, string][] = [
    ['permission denied vs no such file', "cp: cannot stat 'a': No such file or directory", "cp: cannot create regular file 'a': Permission denied"],
    ['EACCES vs EPERM', 'tee: /x: Permission denied', "chmod: changing permissions of '/x': Operation not permitted"],
    ['refused by different services', 'connect ECONNREFUSED 127.0.0.1:5432', 'connect ECONNREFUSED 127.0.0.1:6379'],
    ['404 vs 500', 'HTTP 404 Not Found', 'HTTP 500 Internal Server Error'],
    ['429 vs 503', 'HTTP 429 Too Many Requests', 'HTTP 503 Service Unavailable'],
    ['a missing relation vs a missing column', 'ERROR:  relation "sales" does not exist', 'ERROR:  column "sales" does not exist'],
    ['a message that is only a quoted name is that name', "'email'", "'user_id'"],
    ['quoted paths are not names', "could not open '/etc/a.conf'", "could not open '/etc/b.conf'"],
    ['unquoted names stay significant', 'no such file a.txt', 'no such file b.txt'],
    ['line numbers stay significant where no class applies', 'SyntaxError at line 3', 'SyntaxError at line 4'],
    ['prose that merely mentions a file does not make a class', 'make sure the file exists', 'make sure the path exists'],
  ];
  it.each(different)('different: %s', (_name, a, b) => {
    expect(errorHash('ToolError', a)).not.toBe(errorHash('ToolError', b));
  });

  it('the error type stays part of the hash', () => {
    expect(errorHash('PermissionError', 'Permission denied')).not.toBe(errorHash('OSError', 'Permission denied'));
    expect(errorHash(undefined, 'Permission denied')).not.toBe(errorHash('E', 'Permission denied'));
  });

  it('an errno name alone is its class; a lower-case look-alike is not a name', () => {
    expect(errorHash('E', 'EACCES')).toBe(errorHash('E', 'permission denied'));
    expect(errorHash('E', 'ETIMEDOUT')).not.toBe(errorHash('E', 'ETIMEDOUT'.toLowerCase()));
  });
});

describe('errorClass', () => {
  it.each([
    ["EACCES: permission denied, open '/x'", { '$lg:errno': 'EACCES' }],
    // The first errno named wins, whichever spelling it has.
    ['Operation not permitted (EACCES later)', { '$lg:errno': 'EPERM' }],
    ['ENOENT then Permission denied', { '$lg:errno': 'ENOENT' }],
    ['timed out after 30s', { '$lg:errno': 'ETIMEDOUT' }],
    ['connect ETIMEDOUT 10.0.0.7:443', { '$lg:errno': 'ETIMEDOUT', endpoint: '10.0.0.7:443' }],
    ['connect ECONNREFUSED [::1]:6379', { '$lg:errno': 'ECONNREFUSED', endpoint: '[::1]:6379' }],
    ['listen EADDRINUSE: address already in use :::3000', { '$lg:errno': 'EADDRINUSE', endpoint: ':::3000' }],
    ['Request failed with status code 503.', { '$lg:http': 503 }],
    ['{"statusCode":502,"message":"Bad Gateway"}', { '$lg:http': 502 }],
    ['HTTP Error 404: Not Found', { '$lg:http': 404 }],
    ['expected status 200, got 500', null],
    ['exit status 1', null],
    ['found 404 items', null],
    ['ERROR:  relation "sales" does not exist\nLINE 1: SELECT', { '$lg:shape': 'ERROR:  relation "<id>" does not exist' }],
    ["name 'foo' is not defined", { '$lg:shape': "name '<id>' is not defined" }],
    ["KeyError: 'email'", null],
    ['Traceback (most recent call last):\n  File "a.py", line 3', null],
    ['', null],
  ])('%s', (message, expected) => {
    expect(cls(message)).toEqual(expected);
  });

  it('every phrase maps to an errno name', () => {
    for (const [phrase, name] of Object.entries(ERRNO_PHRASES)) {
      expect(cls(`x: ${phrase.toUpperCase()}`)).toMatchObject({ '$lg:errno': name });
      expect(name).toMatch(/^E[A-Z0-9_]+$/);
    }
  });

  it('is bounded on huge messages', () => {
    const huge = 'relation "x" does not exist '.repeat(100_000);
    expect(errorHash('E', huge)).toMatch(/^[0-9a-f]{16}$/);
  });
});
