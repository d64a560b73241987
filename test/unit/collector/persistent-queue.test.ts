import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startCollector } from '../../../src/collector/index.js';
import type { RunningCollector, SpanAnnotator } from '../../../src/collector/index.js';
import { jsonRequest, spansOf, startUpstream, waitFor } from './helpers.js';
import type { Upstream } from './helpers.js';

const annotator: SpanAnnotator = { onStart() {}, onEnd() {}, verdict: () => undefined };
const upstreams: Upstream[] = [];
const collectors: RunningCollector[] = [];
const dirs: string[] = [];
const logs: string[] = [];

afterEach(async () => {
  for (const c of collectors.splice(0)) await c.close();
  for (const u of upstreams.splice(0)) await u.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  logs.length = 0;
});

async function upstreamAnswering(status: number, retryAfter?: string): Promise<Upstream> {
  const up = await startUpstream();
  up.respond = (_req, _attempt, res) => {
    if (status === 200) return true;
    res.writeHead(status, retryAfter ? { 'retry-after': retryAfter } : {}).end();
    return false;
  };
  upstreams.push(up);
  return up;
}

async function start(config: Parameters<typeof startCollector>[0]): Promise<RunningCollector> {
  const c = await startCollector({ listen: { host: '127.0.0.1', port: 0 }, batch: { maxSpans: 4, intervalMs: 0 }, ...config }, { createAnnotator: () => annotator, log: (m) => logs.push(m) });
  collectors.push(c);
  return c;
}

function postTo(url: string, n: number): Promise<{ status: number; ids: string[] }> {
  const body = jsonRequest(n);
  const ids = (body as any).resourceSpans[0].scopeSpans[0].spans.map((s: { spanId: string }) => s.spanId) as string[];
  return fetch(`${url}/v1/traces`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }).then((r) => ({ status: r.status, ids }));
}

const hex = (b: Uint8Array | undefined): string => Buffer.from(b ?? []).toString('hex');
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'loopguard-queue-'));
  dirs.push(d);
  return d;
};

describe('drain', () => {
  it('wakes a batch sleeping in a long Retry-After and delivers it within the budget', async () => {
    const up = await startUpstream();
    upstreams.push(up);
    up.respond = (_req, attempt, res) => {
      if (attempt > 1) return true;
      res.writeHead(503, { 'retry-after': '60' }).end();
      return false;
    };
    const c = await start({ forward: { endpoint: up.url, retry: { initialBackoffMs: 20 } }, shutdown: { timeoutMs: 5000 } });
    const { ids } = await postTo(c.url, 3);
    await waitFor(() => logs.some((l) => l.includes('retrying in 60000 ms')), 5000, 'the long backoff');
    const began = Date.now();
    await c.close();
    expect(Date.now() - began).toBeLessThan(5000);
    expect(spansOf(up.accepted).map((s) => hex(s.spanId)).sort()).toEqual([...ids].sort());
    expect(logs.some((l) => l.startsWith('dropped'))).toBe(false);
  });
});

describe('persistent queue (queue.directory)', () => {
  it('keeps acknowledged spans across a restart and delivers them after it', async () => {
    const directory = tempDir();
    const down = await upstreamAnswering(503);
    const first = await start({ forward: { endpoint: down.url, retry: { initialBackoffMs: 20 } }, queue: { directory }, shutdown: { timeoutMs: 200 } });
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { status, ids } = await postTo(first.url, 5);
      expect(status).toBe(200);
      sent.push(...ids);
    }
    await first.close();
    expect(logs).toContain('15 acknowledged spans not yet forwarded stay in the persistent queue for the next start');
    expect(readdirSync(directory).filter((f) => f.endsWith('.otlp'))).not.toHaveLength(0);

    const up = await upstreamAnswering(200);
    await start({ forward: { endpoint: up.url }, queue: { directory } });
    await waitFor(() => spansOf(up.accepted).length === 15, 10_000, 'the restored spans upstream');
    expect(spansOf(up.accepted).map((s) => hex(s.spanId)).sort()).toEqual(sent.sort());
    await waitFor(() => readdirSync(directory).length === 0, 5000, 'the store emptied');
  });

  it('SIGTERM during a retry backoff, restart: every acknowledged span is delivered', async () => {
    const directory = tempDir();
    const down = await upstreamAnswering(503, '30');
    const script = fileURLToPath(new URL('./fixtures/collector-process.ts', import.meta.url));
    const run = (endpoint: string): { url: Promise<string>; exited: Promise<number | null>; kill: () => void } => {
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        env: {
          ...process.env,
          LOOPGUARD_COLLECTOR_HOST: '127.0.0.1',
          LOOPGUARD_COLLECTOR_PORT: '0',
          LOOPGUARD_COLLECTOR_FORWARD_ENDPOINT: endpoint,
          LOOPGUARD_COLLECTOR_BATCH_MAX_SPANS: '4',
          LOOPGUARD_COLLECTOR_BATCH_INTERVAL_MS: '0',
          LOOPGUARD_COLLECTOR_QUEUE_DIRECTORY: directory,
          LOOPGUARD_COLLECTOR_SHUTDOWN_TIMEOUT_MS: '300',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const url = new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', (line) => resolve((JSON.parse(line) as { url: string }).url));
        child.once('exit', () => reject(new Error(`collector exited early: ${stderr}`)));
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      return { url, exited, kill: () => child.kill('SIGTERM') };
    };
    const first = run(down.url);
    const sent: string[] = [];
    for (let i = 0; i < 4; i++) {
      const { status, ids } = await postTo(await first.url, 6);
      expect(status).toBe(200);
      sent.push(...ids);
    }
    await waitFor(() => down.requests.length >= 1, 5000, 'a failed attempt (the collector now backs off 30 s)');
    first.kill();
    expect(await first.exited).toBe(0);

    const up = await upstreamAnswering(200);
    const second = run(up.url);
    await second.url;
    await waitFor(() => spansOf(up.accepted).length >= sent.length, 15_000, 'the acknowledged spans after the restart');
    expect(spansOf(up.accepted).map((s) => hex(s.spanId)).sort()).toEqual(sent.sort());
    second.kill();
    expect(await second.exited).toBe(0);
  });
});
