/**
 * Agents as a load generator: senders posting OTLP/protobuf requests of whole
 * runs (tool spans, then the run's root span, one trace per run) to a
 * loopguard collector, as an OpenTelemetry SDK exporter does — a 503 or 429
 * is retried with the same body after its Retry-After, so a refused span is
 * never lost by the sender, and a span counts as acknowledged only when its
 * request was answered 200 without a partial-success rejection.
 *
 * Every span id is unique (a random load prefix and a serial), so the sink
 * behind the backend can check each acknowledged span arrived, and once.
 */
import { randomBytes } from 'node:crypto';
import type { OtlpKeyValue, OtlpSpan } from '../../../src/collector/otlp-model.js';
import { decodeTraceResponseProto, encodeTraceRequestProto } from '../../../src/collector/otlp-protobuf.js';

export interface SpanLoadOptions {
  /** The loopguard collector's base URL. */
  url: string;
  senders: number;
  runsPerRequest: number;
  /** Spans per run: `spansPerRun - 1` tool calls and the root span. */
  spansPerRun: number;
  /** Runs to send in all; unset: until stop(). */
  totalRuns?: number;
  /** Pause of each sender between two requests (paces the load on a shared machine). */
  pauseMs?: number;
  /** Keep the hex id of every acknowledged span in `acked`. */
  keepIds?: boolean;
}

export interface SpanLoadStats {
  requests: number;
  ackedSpans: number;
  ackedRuns: number;
  /** Answers that were retried: 503 (queue full, draining) and 429 (too much in flight). */
  refused503: number;
  refused429: number;
  connectionErrors: number;
}

const TOOLS = ['search_orders', 'read_file', 'run_tests', 'http_get', 'sql_query'];
const str = (key: string, value: string): OtlpKeyValue => ({ key, value: { stringValue: value } });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class SpanLoad {
  readonly stats: SpanLoadStats = { requests: 0, ackedSpans: 0, ackedRuns: 0, refused503: 0, refused429: 0, connectionErrors: 0 };
  /** Hex span ids of acknowledged spans (with `keepIds`). */
  readonly acked = new Set<string>();
  private readonly prefix = randomBytes(8);
  private nextRun = 0;
  private stopping = false;
  private senders: Promise<void>[] = [];

  constructor(private readonly options: SpanLoadOptions) {
    if (!(options.spansPerRun >= 2 && options.spansPerRun < 64)) throw new Error(`SpanLoad: spansPerRun must be 2 to 63 (tool calls and a root; ids number steps in 6 bits), got ${options.spansPerRun}`);
  }

  /** Starts the senders; `done` settles when they stop (all runs sent, or stop()), rejecting on an unexpected answer. */
  start(): Promise<void> {
    this.senders = Array.from({ length: this.options.senders }, () => this.sender());
    return this.done;
  }

  get done(): Promise<void> {
    return Promise.all(this.senders).then(() => undefined);
  }

  /** Lets every sender finish the request it is on (retries included), then resolves. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.done;
  }

  private takeRuns(): number[] {
    const { runsPerRequest, totalRuns } = this.options;
    const end = totalRuns === undefined ? this.nextRun + runsPerRequest : Math.min(totalRuns, this.nextRun + runsPerRequest);
    const runs: number[] = [];
    for (; this.nextRun < end; this.nextRun++) runs.push(this.nextRun);
    return runs;
  }

  private async sender(): Promise<void> {
    while (!this.stopping) {
      const runs = this.takeRuns();
      if (runs.length === 0) return;
      const { body, spanIds } = this.request(runs);
      await this.deliver(body);
      this.stats.ackedSpans += spanIds.length;
      this.stats.ackedRuns += runs.length;
      if (this.options.keepIds) for (const id of spanIds) this.acked.add(id);
      if (this.options.pauseMs) await sleep(this.options.pauseMs);
    }
  }

  /** Posts until the collector takes the whole body. */
  private async deliver(body: Uint8Array): Promise<void> {
    for (;;) {
      this.stats.requests++;
      let response: Response;
      try {
        response = await fetch(`${this.options.url}/v1/traces`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-protobuf' },
          body,
          signal: AbortSignal.timeout(120_000),
        });
      } catch {
        this.stats.connectionErrors++;
        await sleep(500);
        continue;
      }
      const answer = new Uint8Array(await response.arrayBuffer());
      if (response.status === 200) {
        const rejected = Number(decodeTraceResponseProto(answer).partialSuccess?.rejectedSpans ?? 0);
        if (rejected > 0) throw new Error(`the collector rejected ${rejected} span(s) of a valid request`);
        return;
      }
      if (response.status !== 503 && response.status !== 429) {
        throw new Error(`the collector answered ${response.status}: ${Buffer.from(answer).toString('utf8').slice(0, 300)}`);
      }
      if (response.status === 503) this.stats.refused503++;
      else this.stats.refused429++;
      const retryAfter = Number(response.headers.get('retry-after'));
      await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 1000);
    }
  }

  private id(length: number, serial: number, tag: number): Uint8Array {
    const id = Buffer.alloc(length);
    this.prefix.copy(id, 0, 0, length - 6);
    id.writeUIntBE(serial * 64 + tag, length - 6, 6);
    return id;
  }

  private request(runs: readonly number[]): { body: Uint8Array; spanIds: string[] } {
    const spans: OtlpSpan[] = [];
    const spanIds: string[] = [];
    const { spansPerRun } = this.options;
    for (const run of runs) {
      const traceId = this.id(16, run, 0);
      const rootId = this.id(8, run, 0);
      const start = BigInt(Date.now()) * 1_000_000n;
      for (let step = 1; step <= spansPerRun; step++) {
        const isRoot = step === spansPerRun;
        const tool = TOOLS[(run + step) % TOOLS.length]!;
        const spanId = isRoot ? rootId : this.id(8, run, step);
        const at = start + BigInt(step) * 1_000_000n;
        spans.push({
          traceId,
          spanId,
          ...(isRoot ? {} : { parentSpanId: rootId }),
          name: isRoot ? 'invoke_agent soak-agent' : `execute_tool ${tool}`,
          kind: 1,
          startTimeUnixNano: (isRoot ? start : at).toString(),
          endTimeUnixNano: (at + 500_000n).toString(),
          attributes: isRoot
            ? [str('gen_ai.operation.name', 'invoke_agent'), str('gen_ai.agent.name', 'soak-agent')]
            : [
                str('gen_ai.operation.name', 'execute_tool'),
                str('gen_ai.tool.name', tool),
                str('gen_ai.tool.call.id', `call-${run}-${step}`),
                str('gen_ai.tool.call.arguments', JSON.stringify({ query: `order ${run}-${step}`, page: step, filters: { region: 'eu' } })),
                str('gen_ai.tool.call.result', JSON.stringify({ hits: [`doc-${run}-${step}`], total: 1, snippet: 'Refunds are issued within 14 days of the return.' })),
              ],
          status: { code: 1 },
        });
        spanIds.push(Buffer.from(spanId).toString('hex'));
      }
    }
    const body = encodeTraceRequestProto({
      resourceSpans: [{ resource: { attributes: [str('service.name', 'e2e-soak-agent')] }, scopeSpans: [{ scope: { name: 'e2e-span-load' }, spans }] }],
    });
    return { body, spanIds };
  }
}
