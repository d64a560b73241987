/**
 * Where the e2e tests find the repository's configs and the binaries that
 * scripts/e2e/install.sh put in the cache.
 */
import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Same default as scripts/e2e/install.sh. */
export function cacheDir(): string {
  return process.env.LOOPGUARD_CACHE ?? join(homedir(), '.cache', 'loopguard');
}

export type BinaryName = 'jaeger' | 'otelcol-loopguard' | 'prometheus' | 'promtool';

/** Absolute path of an installed binary; throws with the command that installs it. */
export function binaryPath(name: BinaryName): string {
  const path = join(cacheDir(), 'bin', name);
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new Error(
      `e2e binary '${name}' not found or not executable at ${path}; run \`bash scripts/e2e/install.sh\` first ` +
        `(it installs into $LOOPGUARD_CACHE, default ~/.cache/loopguard)`,
    );
  }
  return path;
}

/** A path inside collector-config/, checked to exist. */
export function collectorConfigPath(...segments: string[]): string {
  const path = join(REPO_ROOT, 'collector-config', ...segments);
  try {
    accessSync(path, constants.R_OK);
  } catch {
    throw new Error(`collector-config file not found: ${path}`);
  }
  return path;
}
