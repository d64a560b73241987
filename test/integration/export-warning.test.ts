import { createServer } from 'node:net';
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../instrumentation/index.js';

/** A local port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

afterEach(() => {
  vi.unstubAllEnvs();
  diag.disable();
});

describe('the default OTLP exporter with nothing listening', () => {
  it('says so once, through diag and one warning naming the endpoint', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', endpoint);
    const diagWarn = vi.fn();
    diag.setLogger({ error: () => undefined, warn: diagWarn, info: () => undefined, debug: () => undefined, verbose: () => undefined }, DiagLogLevel.WARN);
    const warnings: Error[] = [];
    const onWarning = (w: Error) => void warnings.push(w);
    process.on('warning', onWarning);
    const guard = register({ global: false, instrumentations: false });
    try {
      for (let round = 0; round < 2; round++) {
        await guard.run('agent', () => guard.callTool('search', { q: round }, () => 'ok'));
        await guard.flush().catch(() => undefined);
      }
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
      await guard.shutdown().catch(() => undefined);
    }
    const ours = warnings.filter((w) => (w as Error & { code?: string }).code === 'LOOPGUARD_EXPORT_FAILED');
    expect(ours).toHaveLength(1);
    expect(ours[0]!.message).toContain(`${endpoint}/v1/traces`);
    expect(diagWarn.mock.calls.filter(([m]) => String(m).includes('could not export spans'))).toHaveLength(1);
  });
});
