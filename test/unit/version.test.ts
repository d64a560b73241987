import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';

// The scope version on every span and metric comes from VERSION; a release
// that bumps package.json alone would report the old version forever.
describe('VERSION', () => {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };

  it('equals the version in package.json', () => {
    expect(typeof manifest.version).toBe('string');
    expect(VERSION).toBe(manifest.version);
  });

  it('is a semantic version', () => {
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/);
  });
});
