import { describe, expect, it } from 'vitest';
import { namesAFile, saysNotThere, subjectsOf, WHOLE_SUITE } from '../../src/subjects.js';

describe('subjectsOf: services', () => {
  it('takes host and port from a URL argument, the port from the scheme when none is given, and nothing else of it', () => {
    expect(subjectsOf({ url: 'http://localhost:8080/health?token=abc' })).toEqual(['service://localhost:8080']);
    expect(subjectsOf({ endpoint: 'https://user:secret@API.example.com/v1/items' })).toEqual(['service://api.example.com:443']);
    expect(subjectsOf({ dsn: 'postgres://db.internal/app' })).toEqual(['service://db.internal:5432']);
  });

  it('reads host and port arguments', () => {
    expect(subjectsOf({ host: 'redis', port: 6379 })).toEqual(['service://redis:6379']);
    expect(subjectsOf({ hostname: 'db', port: '5432' })).toEqual(['service://db:5432']);
    expect(subjectsOf({ host: 'db', port: 'default' })).toEqual([]);
  });

  it('reads the target of curl, wget and nc in a shell command, with or without a scheme', () => {
    expect(subjectsOf({ command: 'curl -sf http://127.0.0.1:3000/healthz' })).toEqual(['service://127.0.0.1:3000']);
    expect(subjectsOf({ command: 'sleep 2 && curl -s localhost:8080/health | jq .status' })).toEqual(['service://localhost:8080']);
    expect(subjectsOf({ cmd: 'wget -qO- https://example.org/' })).toEqual(['service://example.org:443']);
    expect(subjectsOf({ command: 'nc -z db 5432' })).toEqual(['service://db:5432']);
  });

  it('does not take URLs from other commands (a script given a URL is not a check of it)', () => {
    expect(subjectsOf({ command: 'python scrape.py https://example.org' })).toEqual([]);
  });
});

describe('subjectsOf: tests', () => {
  it('names each path or test id given to a runner', () => {
    expect(subjectsOf({ command: 'pytest tests/test_auth.py::test_login -x' })).toEqual(['test://tests/test_auth.py::test_login']);
    expect(subjectsOf({ command: 'python -m pytest -q tests/a.py tests/b.py' })).toEqual(['test://tests/a.py', 'test://tests/b.py']);
    expect(subjectsOf({ command: 'npx vitest run test/unit/cart.test.ts' })).toEqual(['test://test/unit/cart.test.ts']);
    expect(subjectsOf({ command: 'cd api && go test ./internal/store' })).toEqual(['test://./internal/store']);
    expect(subjectsOf({ command: 'npm test -- src/cart.test.js' })).toEqual(['test://src/cart.test.js']);
  });

  it('names the tests a name filter selects', () => {
    expect(subjectsOf({ command: 'pytest -k test_refund' })).toEqual(['test://test_refund']);
    expect(subjectsOf({ command: 'go test -run=TestParse ./...' })).toEqual(['test://TestParse']);
  });

  it('makes a run without targets the whole suite', () => {
    expect(subjectsOf({ command: 'npm test' })).toEqual([WHOLE_SUITE]);
    expect(subjectsOf({ command: 'CI=1 pnpm test' })).toEqual([WHOLE_SUITE]);
    expect(subjectsOf({ command: 'go test ./...' })).toEqual([WHOLE_SUITE]);
    expect(subjectsOf('cargo test')).toEqual([WHOLE_SUITE]);
  });

  it('finds no subject in commands that check nothing', () => {
    expect(subjectsOf({ command: 'ls -la && cat README.md' })).toEqual([]);
    expect(subjectsOf({ command: 'npm install' })).toEqual([]);
  });
});

describe('subjectsOf: files', () => {
  it('names the path argument of a call without a command', () => {
    expect(subjectsOf({ path: 'src/app.py', old_str: 'a', new_str: 'b' })).toEqual(['file://src/app.py']);
    expect(subjectsOf({ file_path: '/repo/setup.cfg' })).toEqual(['file:///repo/setup.cfg']);
  });

  it('lets a command decide over a path (a shell tool run in a directory)', () => {
    expect(subjectsOf({ command: 'npm test', path: '/repo' })).toEqual([WHOLE_SUITE]);
  });

  it('finds nothing in arguments naming none (a search query)', () => {
    expect(subjectsOf({ query: 'refund policy' })).toEqual([]);
    expect(subjectsOf(undefined)).toEqual([]);
    expect(subjectsOf(42)).toEqual([]);
  });
});

describe('namesAFile', () => {
  it('is true for arguments with a path argument, with or without a command', () => {
    expect(namesAFile({ path: '/etc/nginx/conf.d/shop.conf', old_str: 'a', new_str: 'b' })).toBe(true);
    expect(namesAFile({ file: 'contacts.csv', where: { Id: '1' } })).toBe(true);
    expect(namesAFile({ command: 'str_replace', path: 'src/app.py' })).toBe(true);
  });

  it('is false for a note, a command alone, an empty path or no arguments', () => {
    expect(namesAFile({ thought: 'the amounts must add up' })).toBe(false);
    expect(namesAFile({ command: 'nginx -t' })).toBe(false);
    expect(namesAFile({ path: '' })).toBe(false);
    expect(namesAFile('cat a.txt')).toBe(false);
    expect(namesAFile(undefined)).toBe(false);
  });
});

describe('subjectsOf: per-tool rules', () => {
  it("'none' turns the inference off", () => {
    expect(subjectsOf({ url: 'http://a:1' }, 'none')).toEqual([]);
  });

  it('a serialisable rule reads one argument as a subject of its kind', () => {
    expect(subjectsOf({ target: 'http://svc:9000/x' }, { kind: 'service', arg: 'target' })).toEqual(['service://svc:9000']);
    expect(subjectsOf({ target: 'svc:9000' }, { kind: 'service', arg: 'target' })).toEqual(['service://svc:9000']);
    expect(subjectsOf({ suite: 'checkout' }, { kind: 'test', arg: 'suite' })).toEqual(['test://checkout']);
    expect(subjectsOf({ doc: 'notes.md' }, { kind: 'file', arg: 'doc' })).toEqual(['file://notes.md']);
    expect(subjectsOf({ other: 'x' }, { kind: 'file', arg: 'doc' })).toEqual([]);
  });

  it('a function returns the subjects itself; empty answers are dropped', () => {
    expect(subjectsOf({ id: 7 }, (a) => `service://queue/${(a as { id: number }).id}`)).toEqual(['service://queue/7']);
    expect(subjectsOf({}, () => ['test://a', ''])).toEqual(['test://a']);
    expect(subjectsOf({}, () => undefined)).toEqual([]);
  });
});

describe('saysNotThere', () => {
  it('tells a missing thing from a failed check', () => {
    expect(saysNotThere("ENOENT: no such file or directory, open 'cfg.yaml'")).toBe(true);
    expect(saysNotThere('HTTP 404 Not Found')).toBe(true);
    expect(saysNotThere('Connection refused')).toBe(false);
    expect(saysNotThere('old_str not found in file')).toBe(false);
    expect(saysNotThere('HTTP 503 Service Unavailable')).toBe(false);
    expect(saysNotThere(undefined)).toBe(false);
  });
});
