/**
 * `npm run demo`: a scripted support agent (no LLM needed) that falls into the
 * classic loop of the field reports — querying an order id that does not
 * exist, again and again — and is nudged, blocked and finally stopped.
 *
 * Spans go to OTEL_EXPORTER_OTLP_ENDPOINT when it is set (try it with Jaeger),
 * and nowhere otherwise.
 */
import { LoopBreakError, register, setToolOutcome, type LoopEvent, type NotExecutedResult } from '../instrumentation/index.js';

const exportsSpans = Boolean(process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);

const verdicts = new Map<number, LoopEvent>();
const guard = register({
  serviceName: 'loopguard-demo',
  exporter: exportsSpans ? 'otlp' : 'none',
  onLoop: (e) => {
    verdicts.set(e.step, e);
  },
});

// The shop's tools. The order the customer mentions was never placed.
const ORDERS: Record<string, { status: string; eta: string }> = { 'A-10491': { status: 'shipped', eta: '2026-12-02' } };
const tools = guard.wrapTools({
  lookup_customer: async (args: { email: string }) => ({ customer_id: 'C-77', email: args.email }),
  query_order: async (args: { order_id: string }) => {
    const order = ORDERS[args.order_id];
    if (!order) {
      setToolOutcome('empty');
      return { status: 'not_found' };
    }
    return order;
  },
});

type Step = { tool: 'lookup_customer'; args: { email: string } } | { tool: 'query_order'; args: { order_id: string } };

/**
 * A stubborn scripted "model": it looks the customer up, then keeps asking
 * for the order id the customer typed, ignoring every nudge.
 */
function nextStep(turn: number): Step {
  if (turn === 0) return { tool: 'lookup_customer', args: { email: 'li@example.com' } };
  return { tool: 'query_order', args: { order_id: 'A-10492' } };
}

function describe(result: unknown): string {
  const text = JSON.stringify(result) ?? String(result);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function line(step: number, call: string, outcome: string, verdict: string): void {
  console.log(`${String(step).padStart(4)}  ${call.padEnd(44)} ${outcome.padEnd(34)} ${verdict}`);
}

async function agent(): Promise<void> {
  for (let turn = 0; turn < 25; turn++) {
    const step = nextStep(turn);
    const call = `${step.tool}(${JSON.stringify(step.args)})`;
    const n = turn + 1;
    try {
      const result =
        step.tool === 'lookup_customer' ? await tools.lookup_customer(step.args) : await tools.query_order(step.args);
      const verdict = verdicts.get(n);
      const run = guard.verdict();
      const quiet = !verdict && run?.last?.step === n ? `${run.last.level} (${run.last.detector}, nudge throttled)` : 'ok';
      const blocked = (result as Partial<NotExecutedResult>).status === 'not_executed';
      const shown = blocked ? 'NOT EXECUTED' : describe(result && typeof result === 'object' ? { ...result, loopguard_notice: undefined } : result);
      line(n, call, shown, verdict ? `${verdict.level.toUpperCase()} (${verdict.detector}, ${verdict.evidence.count}x)` : quiet);
      if (verdict?.level === 'warning') console.log(`        nudge to the model: ${verdict.nudge.split('\n')[0]}`);
    } catch (err) {
      if (err instanceof LoopBreakError) {
        line(n, call, 'REFUSED', `BREAK (${err.detector})`);
        console.log(`\nThe run was stopped at step ${err.step}: ${err.message}`);
        console.log(`code=${err.code} reason=${err.reason} traceId=${err.traceId}`);
        return;
      }
      throw err;
    }
  }
  throw new Error('the demo agent was never stopped');
}

console.log('loopguard demo: a support agent asks for an order that does not exist\n');
console.log(`${'step'.padStart(4)}  ${'call'.padEnd(44)} ${'result'.padEnd(34)} verdict`);
await guard.run('support-agent', agent);
await guard.shutdown();
console.log(
  exportsSpans
    ? `\nSpans exported to ${process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_ENDPOINT}: search for loopguard.level=break.`
    : '\nSet OTEL_EXPORTER_OTLP_ENDPOINT (e.g. http://localhost:4318) to see these spans in Jaeger.',
);
