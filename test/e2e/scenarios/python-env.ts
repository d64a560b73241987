/**
 * A Python virtual environment with the OpenTelemetry Python SDK and its
 * OTLP/HTTP exporter, for the Python agent scenario. Cached under
 * $LOOPGUARD_CACHE/py (default ~/.cache/loopguard/py) next to a stamp naming
 * the interpreter and the pinned packages, so a warm run costs one file read.
 * The install goes through pip and PyPI, the registry this machine reaches.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../support/index.js';

/** Pinned together: the exporter release matches the SDK release. */
export const PYTHON_PACKAGES = ['opentelemetry-sdk==1.45.2', 'opentelemetry-exporter-otlp-proto-http==1.45.2'] as const;

export interface PythonEnv {
  /** The venv's interpreter. */
  readonly python: string;
  readonly dir: string;
  /** Seconds the install took, or 0 when the cached venv was used. */
  readonly installSeconds: number;
}

function run(command: string, args: readonly string[], what: string, timeoutMs: number): string {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: timeoutMs });
  if (result.error) throw new Error(`${what}: ${command} ${args.join(' ')} could not run: ${result.error.message}`);
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.status !== 0) {
    throw new Error(`${what}: ${command} ${args.join(' ')} exited with ${result.status ?? result.signal}:\n${output.slice(-4000)}`);
  }
  return output;
}

/** The base interpreter: $LOOPGUARD_PYTHON, else python3 on PATH. */
function baseInterpreter(): { command: string; version: string } {
  const command = process.env.LOOPGUARD_PYTHON || 'python3';
  const version = run(command, ['-c', 'import sys; print(sys.version.split()[0])'], 'finding a Python 3 interpreter (set LOOPGUARD_PYTHON to choose one)', 30_000).trim();
  const [major, minor] = version.split('.').map(Number);
  if (major !== 3 || minor === undefined || minor < 9) {
    throw new Error(`${command} is Python ${version}; the OpenTelemetry Python SDK ${PYTHON_PACKAGES[0]} needs Python >= 3.9`);
  }
  return { command, version };
}

/** Creates or reuses the venv; idempotent and safe to call from every test file. */
export function ensurePythonEnv(): PythonEnv {
  const dir = join(cacheDir(), 'py');
  const python = join(dir, 'bin', 'python');
  const stampPath = join(dir, 'loopguard-stamp.txt');
  const base = baseInterpreter();
  const stamp = `python ${base.version} (${base.command}); ${PYTHON_PACKAGES.join(' ')}`;
  if (existsSync(python) && existsSync(stampPath) && readFileSync(stampPath, 'utf8') === stamp) {
    return { python, dir, installSeconds: 0 };
  }

  const started = Date.now();
  rmSync(dir, { recursive: true, force: true });
  run(base.command, ['-m', 'venv', dir], 'creating the Python venv', 120_000);
  run(python, ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '--quiet', ...PYTHON_PACKAGES], 'installing the OpenTelemetry Python SDK', 300_000);
  // The import the agent needs must work before the stamp says the venv is good.
  run(python, ['-c', 'import opentelemetry.sdk.trace, opentelemetry.exporter.otlp.proto.http.trace_exporter'], 'checking the OpenTelemetry Python install', 60_000);
  writeFileSync(stampPath, stamp);
  return { python, dir, installSeconds: Math.round((Date.now() - started) / 1000) };
}
