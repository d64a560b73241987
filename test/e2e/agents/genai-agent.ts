/**
 * An agent process WITHOUT loopguard in it: plain OpenTelemetry JS SDK,
 * GenAI semantic-convention spans (an `invoke_agent` root per run, one
 * `execute_tool` child per tool call with gen_ai.tool.call.arguments/.result
 * as JSON text), exported over OTLP/HTTP to whatever --endpoint is: a
 * loopguard collector, a Collector gateway or a load balancer. Detection
 * happens there, never here.
 *
 * Runs `--looping` looping runs and `--normal` normal runs concurrently, their
 * steps interleaved (each step yields to the others), so export batches mix
 * spans of many runs. A looping run repeats one call whose result never
 * changes; a normal run makes a new call with a new result every step.
 *
 * With --verdict-url (a loopguard collector's base URL) every run flushes
 * after each tool call, asks `GET /v1/runs/{key}` for its verdict and stops
 * when it says `stopped: true`, as a remote agent in any language would.
 *
 * With --turns N (N > 1, needs --conversation-prefix) a run is a conversation
 * of N traces: each turn has its own `invoke_agent` root and its share of the
 * steps, and every span carries gen_ai.conversation.id, as multi-turn agents
 * export them; the run's key is then the conversation id.
 *
 * stdout: one JSON line per run when it ends (`{"type":"run",...}`), then
 * `{"type":"done",...}` with the exporter's counts; with --hold-ms the
 * process then stays up (printing `{"type":"holding"}` first), like an agent
 * service waiting for its next task.
 */
import { parseArgs } from 'node:util';
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { createOtlpTracer } from '../support/otlp-tracer.js';

const { values } = parseArgs({
  options: {
    endpoint: { type: 'string' },
    service: { type: 'string' },
    looping: { type: 'string', default: '0' },
    normal: { type: 'string', default: '0' },
    steps: { type: 'string', default: '10' },
    'verdict-url': { type: 'string' },
    'step-delay-ms': { type: 'string', default: '0' },
    'hold-ms': { type: 'string', default: '0' },
    'conversation-prefix': { type: 'string' },
    turns: { type: 'string', default: '1' },
  },
});

function intOption(name: keyof typeof values, min: number): number {
  const raw = values[name];
  const value = Number(raw);
  if (typeof raw !== 'string' || !Number.isInteger(value) || value < min) {
    throw new Error(`--${name} must be an integer >= ${min}, got '${String(raw)}'`);
  }
  return value;
}

if (!values.endpoint) throw new Error('--endpoint is required (OTLP/HTTP base URL, e.g. http://127.0.0.1:4318)');
if (!values.service) throw new Error('--service is required (the service.name of the spans)');
const looping = intOption('looping', 0);
const normal = intOption('normal', 0);
const steps = intOption('steps', 2);
const stepDelayMs = intOption('step-delay-ms', 0);
const holdMs = intOption('hold-ms', 0);
const turns = intOption('turns', 1);
if (turns > 1 && !values['conversation-prefix']) throw new Error('--turns > 1 needs --conversation-prefix: a run of several traces is keyed by its conversation id');
if (looping + normal === 0) throw new Error('--looping and --normal are both 0: nothing to run');
const verdictUrl = values['verdict-url']?.replace(/\/$/, '');

const otlp = createOtlpTracer(values.endpoint, values.service);
const tracer = otlp.tracer;

type Mode = 'looping' | 'normal';
interface ToolCall {
  tool: string;
  args: unknown;
  result: unknown;
}

/** What the "model" asks for at `step` (1-based). */
function nextCall(mode: Mode, run: number, step: number): ToolCall {
  if (step === 1) {
    return { tool: 'lookup_customer', args: { email: `customer-${run}@example.com` }, result: { customer_id: `C-${run}`, open_orders: 1 } };
  }
  if (mode === 'looping') {
    // The same query for an order that does not exist, the same answer every time.
    return { tool: 'search_orders', args: { customer_id: `C-${run}`, query: 'order A-10492' }, result: { matches: [], searched: 'orders' } };
  }
  // A different page each step, with different content: progress.
  return {
    tool: 'read_page',
    args: { url: `https://docs.example.com/run-${run}/page-${step}` },
    result: { title: `Page ${step}`, text: `run ${run}, section ${step}: ${'lorem '.repeat(step)}` },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolveSleep) => (ms > 0 ? setTimeout(resolveSleep, ms) : setImmediate(resolveSleep)));
}

interface Verdict {
  stopped?: boolean;
  level?: string | null;
  [key: string]: unknown;
}

async function readVerdict(key: string): Promise<Verdict | undefined> {
  const url = `${verdictUrl}/v1/runs/${encodeURIComponent(key)}`;
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Verdict;
}

function toolSpan(call: ToolCall, callId: string, parent: Span, conversationId: string | undefined): void {
  const span = tracer.startSpan(
    `execute_tool ${call.tool}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.tool,
        'gen_ai.tool.call.id': callId,
        'gen_ai.tool.type': 'function',
        'gen_ai.tool.call.arguments': JSON.stringify(call.args),
        'gen_ai.tool.call.result': JSON.stringify(call.result),
        ...(conversationId ? { 'gen_ai.conversation.id': conversationId } : {}),
      },
    },
    trace.setSpan(context.active(), parent),
  );
  span.setStatus({ code: SpanStatusCode.OK });
  span.end();
}

async function agentRun(mode: Mode, run: number) {
  const conversationId = values['conversation-prefix'] ? `${values['conversation-prefix']}-${run}` : undefined;
  const startTurn = (): Span =>
    tracer.startSpan(`invoke_agent support-${mode}`, {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': `support-${mode}`,
        ...(conversationId ? { 'gen_ai.conversation.id': conversationId } : {}),
      },
    });
  let root = startTurn();
  const traceIds = [root.spanContext().traceId];
  const traceId = traceIds[0]!;
  const runKey = conversationId ?? traceId;
  const stepsPerTurn = Math.ceil(steps / turns);
  let toolCalls = 0;
  let verdict: Verdict | undefined;
  for (let step = 1; step <= steps; step++) {
    if (step > 1 && (step - 1) % stepsPerTurn === 0) {
      // The next turn of the conversation: a new trace.
      root.end();
      root = startTurn();
      traceIds.push(root.spanContext().traceId);
    }
    toolSpan(nextCall(mode, run, step), `call-${run}-${step}`, root, turns > 1 ? conversationId : undefined);
    toolCalls++;
    if (verdictUrl) {
      // The collector only knows what reached it: flush, then ask.
      await otlp.flush();
      verdict = await readVerdict(runKey);
      if (verdict?.stopped === true) break;
    }
    await sleep(stepDelayMs > 0 ? stepDelayMs + Math.floor(Math.random() * stepDelayMs) : 0);
  }
  root.end();
  return { type: 'run', run, mode, traceId, traceIds, runKey, ...(conversationId ? { conversationId } : {}), toolCalls, spans: toolCalls + traceIds.length, stopped: verdict?.stopped === true, verdict };
}

const runs = [
  ...Array.from({ length: looping }, (_, index) => ({ mode: 'looping' as const, run: index })),
  ...Array.from({ length: normal }, (_, index) => ({ mode: 'normal' as const, run: looping + index })),
];
const reports = await Promise.all(runs.map(({ mode, run }) => agentRun(mode, run)));
await otlp.flush();
await otlp.shutdown();
for (const report of reports) process.stdout.write(`${JSON.stringify(report)}\n`);
process.stdout.write(`${JSON.stringify({ type: 'done', exportedSpans: otlp.exported.spans, failedSpans: otlp.exported.failedSpans })}\n`);

if (holdMs > 0) {
  process.stdout.write(`${JSON.stringify({ type: 'holding' })}\n`);
  await sleep(holdMs);
}
