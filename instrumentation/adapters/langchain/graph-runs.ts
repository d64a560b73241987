import { context } from '@opentelemetry/api';
import { isWrapped } from '@opentelemetry/instrumentation';
import type { OpenRun } from '../../agent-run.js';
import { idOf, openAutoRun, withAutoRun } from '../shared/auto-run.js';
import type { ToolCallGuard } from '../shared/guard-like.js';
import { gateInvocation } from '../shared/completion-gate.js';
import { graphInvocation } from './completion-gate.js';

type InvokeFn = (this: GraphLike, input: unknown, options?: GraphOptions) => Promise<unknown>;
interface GraphOptions {
  configurable?: { thread_id?: unknown };
}
/** LangGraph's `Pregel`: every compiled graph, `createReactAgent` and LangChain v1 `createAgent` run through it. */
export interface GraphLike {
  name?: unknown;
  invoke: InvokeFn;
  stream: InvokeFn;
}
interface StreamLike {
  next?: (...args: unknown[]) => Promise<IteratorResult<unknown>>;
  return?: (...args: unknown[]) => Promise<IteratorResult<unknown>>;
  throw?: (...args: unknown[]) => Promise<IteratorResult<unknown>>;
}
interface Host {
  wrapMethod<T extends object>(target: T, name: keyof T & string, wrapper: (original: never) => unknown): void;
  unwrapMethod<T extends object>(target: T, name: keyof T & string): void;
  /** Wraps a tool node's `runTool` so a LoopBreakError stops the graph instead of becoming a message. */
  wrapRunTool(original: never): unknown;
}
interface ToolNodeProto {
  runTool?: unknown;
}

/** Tool-node prototypes found on graphs and patched, for unpatchGraphs to restore. */
const toolNodeProtos = new Set<ToolNodeProto>();

/**
 * The graph's tool nodes (LangGraph's prebuilt ToolNode, LangChain v1
 * `createAgent`'s own, any class with `runTool`) catch a tool's error and
 * hand it to the model as a message; a LoopBreakError must stop the graph
 * instead. Found on the graph itself, so no module needs importing.
 */
function guardToolNodes(graph: GraphLike, host: Host): void {
  try {
    const nodes = (graph as { nodes?: Record<string, { bound?: object } | undefined> }).nodes;
    for (const node of Object.values(nodes ?? {})) {
      const proto = node?.bound ? (Object.getPrototypeOf(node.bound) as ToolNodeProto | null) : null;
      if (!proto || typeof proto.runTool !== 'function' || isWrapped(proto.runTool)) continue;
      host.wrapMethod(proto, 'runTool', (original: never) => host.wrapRunTool(original));
      toolNodeProtos.add(proto);
    }
  } catch {
    // A graph of an unexpected shape: its tool calls are still guarded, only the break may become a message.
  }
}

function runOptions(graph: GraphLike, options: GraphOptions | undefined) {
  const name = idOf(graph?.name) ?? 'langgraph';
  const conversationId = idOf(options?.configurable?.thread_id);
  return { name, options: { agentName: name, ...(conversationId ? { conversationId } : {}) } };
}

/**
 * A graph's `invoke` and `stream` are one agent invocation each: a run of
 * its own when none is active, keyed by the thread id when there is one.
 * (`invoke` goes through `stream`, which then finds the run active.)
 */
export function patchGraphs<M extends { Pregel?: { prototype: GraphLike } }>(moduleExports: M, host: Host, currentGuard: () => ToolCallGuard | undefined): M {
  const proto = moduleExports?.Pregel?.prototype;
  if (!proto) return moduleExports;
  if (!isWrapped(proto.invoke)) {
    host.wrapMethod(proto, 'invoke', (original: InvokeFn) =>
      function loopguardInvoke(this: GraphLike, input: unknown, options?: GraphOptions) {
        guardToolNodes(this, host);
        const { name, options: run } = runOptions(this, options);
        const invoke = (given: unknown) => original.call(this, given, options);
        return withAutoRun(currentGuard(), name, run, () => gateInvocation(currentGuard(), graphInvocation(invoke, input)));
      },
    );
  }
  if (!isWrapped(proto.stream)) {
    host.wrapMethod(proto, 'stream', (original: InvokeFn) =>
      async function loopguardStream(this: GraphLike, input: unknown, options?: GraphOptions) {
        guardToolNodes(this, host);
        const { name, options: runOpts } = runOptions(this, options);
        const run = openAutoRun(currentGuard(), name, runOpts);
        if (!run) return original.call(this, input, options);
        let stream: unknown;
        try {
          stream = await context.with(run.context, () => original.call(this, input, options));
        } catch (err) {
          run.end(err);
          throw err;
        }
        return iterateInRun(stream as StreamLike, run);
      },
    );
  }
  return moduleExports;
}

export function unpatchGraphs(moduleExports: { Pregel?: { prototype: GraphLike } } | undefined, host: Host): void {
  const proto = moduleExports?.Pregel?.prototype;
  if (proto && isWrapped(proto.invoke)) host.unwrapMethod(proto, 'invoke');
  if (proto && isWrapped(proto.stream)) host.unwrapMethod(proto, 'stream');
  for (const toolNode of toolNodeProtos) if (isWrapped(toolNode.runTool)) host.unwrapMethod(toolNode, 'runTool');
  toolNodeProtos.clear();
}

/**
 * The graph runs as the stream is read, in the reader's context: each step
 * is read inside the run, and the run ends with the stream (done, failed or
 * given up).
 */
function iterateInRun(stream: StreamLike, run: OpenRun): StreamLike {
  if (typeof stream?.next !== 'function') {
    run.end();
    return stream;
  }
  for (const method of ['next', 'return', 'throw'] as const) {
    const original = stream[method];
    if (typeof original !== 'function') continue;
    stream[method] = (...args: unknown[]) =>
      context.with(run.context, () => original.apply(stream, args)).then(
        (step) => {
          if (step.done || method !== 'next') run.end();
          return step;
        },
        (err: unknown) => {
          run.end(err);
          throw err;
        },
      );
  }
  return stream;
}
