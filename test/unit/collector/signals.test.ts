import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonRequest, spansOf, startUpstream, waitFor } from './helpers.js';
import type { Upstream } from './helpers.js';

let upstream: Upstream | undefined;
afterEach(async () => {
  await upstream?.close();
});

describe('closeOnSignals', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`on ${signal}: stops accepting, flushes the queue to the upstream, exits 0`, async () => {
      upstream = await startUpstream();
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      upstream.respond = async () => {
        await released;
        return true;
      };
      const script = fileURLToPath(new URL('./fixtures/collector-process.ts', import.meta.url));
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        env: {
          ...process.env,
          LOOPGUARD_COLLECTOR_HOST: '127.0.0.1',
          LOOPGUARD_COLLECTOR_PORT: '0',
          LOOPGUARD_COLLECTOR_FORWARD_ENDPOINT: upstream.url,
          LOOPGUARD_COLLECTOR_BATCH_MAX_SPANS: '4',
          LOOPGUARD_COLLECTOR_BATCH_INTERVAL_MS: '0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const first = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', () => reject(new Error(`collector exited early: ${stderr}`)));
      });
      const { url } = JSON.parse(first) as { url: string };
      const res = await fetch(`${url}/v1/traces`, { method: 'POST', body: JSON.stringify(jsonRequest(10)), headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(200);
      await waitFor(() => upstream!.requests.length === 1);

      child.kill(signal);
      await waitFor(() => stderr.includes(`${signal}: draining`), 10_000, 'drain log');
      expect((await fetch(`${url}/healthz`)).status).toBe(503);
      release();
      expect(await exited).toBe(0);
      expect(spansOf(upstream.accepted)).toHaveLength(10);
    });
  }
});
