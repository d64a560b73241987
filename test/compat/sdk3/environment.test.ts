import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

// The scenarios prove something only on the runtime and packages this
// project exists for; a silent fallback to the root's SDK 2.x install, to
// Node 20, or to loopguard's source tree would make them pass for nothing.
const require = createRequire(import.meta.url);

/** The package.json that `specifier` resolves to, seen from `from`. */
function manifestOf(specifier: string, from: string): { name: string; version: string; path: string } {
  let dir = dirname(createRequire(from).resolve(specifier));
  for (;;) {
    const candidate = join(dir, 'package.json');
    try {
      const json = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (json.name === specifier) return { name: json.name, version: json.version ?? '', path: candidate };
    } catch {
      // not a package root (or no package.json here): keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json named ${specifier} above ${createRequire(from).resolve(specifier)}`);
    dir = parent;
  }
}

describe('the SDK 3 compatibility environment', () => {
  it('runs on Node >= 22.15', () => {
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    expect(major > 22 || (major === 22 && minor >= 15), `Node ${process.versions.node}`).toBe(true);
  });

  it('uses OpenTelemetry SDK 3.x and API 1.10 from this project', () => {
    const sdk = manifestOf('@opentelemetry/sdk-trace', import.meta.url);
    expect(sdk.version).toMatch(/^3\./);
    expect(sdk.path).toContain(join('compat', 'sdk3', 'node_modules') + sep);
    expect(manifestOf('@opentelemetry/api', import.meta.url).version).toMatch(/^1\.10\./);
  });

  it('loads loopguard as an installed package, not from the source tree', () => {
    const entry = require.resolve('loopguard');
    expect(entry).toContain(join('compat', 'sdk3', 'node_modules', 'loopguard', 'dist') + sep);
  });

  it("gives loopguard the application's @opentelemetry/api, so both see one context and one tracer registry", () => {
    const fromLoopguard = manifestOf('@opentelemetry/api', require.resolve('loopguard'));
    const fromApp = manifestOf('@opentelemetry/api', import.meta.url);
    expect(fromLoopguard.path).toBe(fromApp.path);
  });
});
