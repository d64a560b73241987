/**
 * An agent process with loopguard in-process: `register()` sets up the tracer
 * provider, its spans go wherever the standard OTEL_EXPORTER_OTLP_* variables
 * point. It runs two runs, like a support agent answering two tickets:
 *
 * - `answer-ticket` (normal): looks a customer up, then reads each of their
 *   orders once — every call new, every result new;
 * - `stuck-ticket` (looping): looks the customer up, then keeps querying an
 *   order id that does not exist and ignores every nudge until loopguard
 *   stops the run with a LoopBreakError.
 *
 * Prints one JSON line per run on stdout (what the test checks against the
 * trace backend) and exits 0 once the provider has flushed; anything
 * unexpected exits non-zero.
 *
 * Usage: node --import tsx inprocess-agent.ts --service NAME [--max-steps N]
 */
import { parseArgs } from 'node:util';
import { trace } from '@opentelemetry/api';
import { LoopBreakError, isNotExecuted, register, setToolOutcome } from '../../../instrumentation/index.js';

const { values } = parseArgs({
  options: {
    service: { type: 'string' },
    'max-steps': { type: 'string', default: '30' },
  },
});
if (!values.service) throw new Error('--service is required (the service.name the spans carry)');
const maxSteps = Number(values['max-steps']);
if (!Number.isInteger(maxSteps) || maxSteps < 2) throw new Error(`--max-steps must be an integer >= 2, got '${values['max-steps']}'`);
if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT && !process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
  throw new Error('OTEL_EXPORTER_OTLP_ENDPOINT is not set: this agent exists to export its spans');
}

const guard = register({ serviceName: values.service, exporter: 'otlp' });

const ORDERS: Record<string, { status: string; total: number }> = {
  'A-100': { status: 'shipped', total: 42 },
  'A-101': { status: 'delivered', total: 17 },
  'A-102': { status: 'processing', total: 99 },
};
const tools = guard.wrapTools({
  lookup_customer: async (args: { email: string }) => ({ customer_id: 'C-77', email: args.email, orders: Object.keys(ORDERS) }),
  query_order: async (args: { order_id: string }) => {
    const order = ORDERS[args.order_id];
    if (!order) {
      setToolOutcome('empty');
      return { status: 'not_found' };
    }
    return { order_id: args.order_id, ...order };
  },
});

/** One line the agent prints per run (the e2e test reads them). */
export interface RunReport {
  run: string;
  traceId: string;
  toolCalls: number;
  stopped: boolean;
  breakStep?: number;
  reason?: string;
  detector?: string;
}

async function normalRun(): Promise<RunReport> {
  let traceId = '';
  let calls = 0;
  await guard.run('answer-ticket', async () => {
    traceId = currentTraceId();
    const customer = await tools.lookup_customer({ email: 'li@example.com' });
    calls++;
    if (isNotExecuted(customer)) return;
    for (const orderId of customer.orders) {
      await tools.query_order({ order_id: orderId });
      calls++;
    }
  });
  return { run: 'answer-ticket', traceId, toolCalls: calls, stopped: false };
}

async function loopingRun(): Promise<RunReport> {
  let traceId = '';
  let calls = 0;
  try {
    await guard.run('stuck-ticket', async () => {
      traceId = currentTraceId();
      await tools.lookup_customer({ email: 'li@example.com' });
      calls++;
      // The order id the customer typed was never placed; the "model" insists.
      for (let step = 1; step < maxSteps; step++) {
        await tools.query_order({ order_id: 'A-10492' });
        calls++;
      }
    });
  } catch (err) {
    if (!(err instanceof LoopBreakError)) throw err;
    return { run: 'stuck-ticket', traceId, toolCalls: calls, stopped: true, breakStep: err.step, reason: err.reason, detector: err.detector };
  }
  throw new Error(`stuck-ticket: loopguard did not stop the run within ${maxSteps} tool calls`);
}

/** The run's trace: guard.run() makes its invoke_agent span the active one. */
function currentTraceId(): string {
  const span = trace.getActiveSpan();
  if (!span) throw new Error('no active span inside guard.run()');
  return span.spanContext().traceId;
}

const reports = [await normalRun(), await loopingRun()];
await guard.shutdown();
for (const report of reports) process.stdout.write(`${JSON.stringify(report)}\n`);
