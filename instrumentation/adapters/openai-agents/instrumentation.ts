import {
  InstrumentationBase,
  InstrumentationNodeModuleDefinition,
  InstrumentationNodeModuleFile,
  isWrapped,
} from '@opentelemetry/instrumentation';
import { loopBreakOf } from '../../../src/breaker.js';
import { VERSION } from '../../../src/version.js';
import { ATTR_LOOPGUARD_FRAMEWORK, insideGuardedToolCall, isNotExecuted, parseArguments } from '../shared/guard-like.js';
import { EnabledInstances } from '../shared/guard-like.js';
import type { LoopguardInstrumentationConfig } from '../shared/guard-like.js';
import { withModule } from '../shared/load.js';
import { idOf, openAutoRun, withAutoRun } from '../shared/auto-run.js';
import { context } from '@opentelemetry/api';
import { gateInvocation } from '../shared/completion-gate.js';
import { runnerInvocation } from './completion-gate.js';
import { guardModel, guardModelProvider } from './model-turns.js';

const AGENTS_VERSIONS = ['>=0.1.0 <2'];
/** The module whose ESM copy is patched without loader hooks. */
export const OPENAI_AGENTS_MODULE = '@openai/agents-core';

type InvokeFn = (this: unknown, runContext: unknown, input: string, details?: unknown) => Promise<unknown>;
interface FunctionToolLike {
  type?: unknown;
  name?: unknown;
  invoke?: unknown;
}
type GetAllToolsFn = (this: unknown, ...args: unknown[]) => Promise<unknown>;
type RunFn = (this: { config?: { groupId?: unknown; modelProvider?: unknown } }, agent: { name?: unknown }, input: unknown, options?: RunOptionsLike) => Promise<unknown>;
interface RunOptionsLike {
  stream?: unknown;
  conversationId?: unknown;
  previousResponseId?: unknown;
}
interface AgentModule {
  Agent?: { prototype: { getAllTools: GetAllToolsFn } };
  Runner?: { prototype: { run: RunFn } };
}

/** Marks a tool whose `invoke` already goes through loopguard, and keeps the original. */
const ORIGINAL_INVOKE = Symbol.for('loopguard.openai-agents.originalInvoke');

const instances = new EnabledInstances<OpenAIAgentsInstrumentation>();
const currentGuard = () => instances.current?.guard();

function callIdOf(details: unknown): string | undefined {
  const id = (details as { toolCall?: { callId?: unknown } } | undefined)?.toolCall?.callId;
  return typeof id === 'string' ? id : undefined;
}

/**
 * OpenAI Agents SDK: function tools are plain objects whose `invoke(runContext,
 * input, details)` the runner calls. `Agent.prototype.getAllTools` hands the
 * runner an agent's tools every turn; the adapter routes each function
 * tool's `invoke` through the guard, once per tool object. The guard sits
 * outside the tool's own error handling: a blocked call answers with the
 * "not executed" text as the tool output, and a LoopBreakError is not turned
 * into "An error occurred while running the tool" but rejects `run()`.
 */
export class OpenAIAgentsInstrumentation extends InstrumentationBase<LoopguardInstrumentationConfig> {
  declare ready: Promise<void>;
  /** The copy patched outside the module hooks, which `disable()` must restore itself. */
  declare private eager: AgentModule | undefined;

  constructor(config: LoopguardInstrumentationConfig) {
    super('loopguard-instrumentation-openai-agents', VERSION, config);
  }

  protected init() {
    const agent = (file: string) =>
      new InstrumentationNodeModuleFile(`@openai/agents-core/dist/${file}`, AGENTS_VERSIONS, (m: AgentModule) => this.patch(m), (m?: AgentModule) => this.unpatch(m));
    return new InstrumentationNodeModuleDefinition('@openai/agents-core', AGENTS_VERSIONS, undefined, undefined, [agent('agent.js'), agent('agent.mjs'), agent('run.js'), agent('run.mjs')]);
  }

  override enable(): void {
    super.enable();
    instances.add(this);
    this.ready = withModule(OPENAI_AGENTS_MODULE, (m) => {
      if (this.isEnabled()) this.eager = this.patch(m as AgentModule);
    });
  }

  override disable(): void {
    super.disable();
    instances.remove(this);
    this.unpatch(this.eager);
    this.eager = undefined;
  }

  guard() {
    return this.getConfig().guard;
  }

  private patch(moduleExports: AgentModule): AgentModule {
    const proto = moduleExports?.Agent?.prototype;
    if (proto && !isWrapped(proto.getAllTools)) this._wrap(proto, 'getAllTools', (original) => wrapGetAllTools(original));
    const runner = moduleExports?.Runner?.prototype;
    if (runner && !isWrapped(runner.run)) this._wrap(runner, 'run', (original) => wrapRun(original));
    return moduleExports;
  }

  private unpatch(moduleExports?: AgentModule): void {
    const proto = moduleExports?.Agent?.prototype;
    if (proto && isWrapped(proto.getAllTools)) this._unwrap(proto, 'getAllTools');
    const runner = moduleExports?.Runner?.prototype;
    if (runner && isWrapped(runner.run)) this._unwrap(runner, 'run');
  }
}

/**
 * `run()` (and `Runner.run`) is one agent invocation: a run of its own when
 * none is active, keyed by the conversation id or the runner's trace group
 * id when there is one. A streamed run ends when its stream completes.
 */
function wrapRun(original: RunFn): RunFn {
  return function loopguardRun(this: { config?: { groupId?: unknown; modelProvider?: unknown } }, agent, input, options): Promise<unknown> {
    const guard = instances.current?.guard();
    guardModelProvider(this?.config?.modelProvider, currentGuard);
    const name = idOf(agent?.name) ?? 'agent';
    const conversationId = idOf(options?.conversationId) ?? idOf(this?.config?.groupId);
    const runOptions = { agentName: name, ...(conversationId ? { conversationId } : {}) };
    if (!options?.stream) {
      const invoke = (given: unknown, more: RunOptionsLike | undefined) => original.call(this, agent, given, more).catch(unwrapBreak);
      return withAutoRun(guard, name, runOptions, () => gateInvocation(guard, runnerInvocation(invoke, input, options)));
    }
    const run = openAutoRun(guard, name, runOptions);
    if (!run) return original.call(this, agent, input, options);
    return context.with(run.context, () => original.call(this, agent, input, options)).then(
      (streamed) => {
        const completed = (streamed as { completed?: Promise<unknown> } | undefined)?.completed;
        if (completed) completed.then(() => run.end(), (err: unknown) => run.end(err));
        else run.end();
        return streamed;
      },
      (err: unknown) => {
        run.end(err);
        throw err;
      },
    );
  };
}

/** The runner wraps a tool's LoopBreakError in a ToolCallError: `run()` rejects with the LoopBreakError itself, so `instanceof` works. */
function unwrapBreak(err: unknown): never {
  throw loopBreakOf(err) ?? err;
}

function wrapGetAllTools(original: GetAllToolsFn): GetAllToolsFn {
  return async function loopguardGetAllTools(this: unknown, ...args: unknown[]): Promise<unknown> {
    // Called as each turn is prepared: the agent's own model object is guarded before the turn's model call.
    guardModel((this as { model?: unknown } | undefined)?.model, currentGuard);
    const tools = await original.apply(this, args);
    if (Array.isArray(tools)) for (const tool of tools) guardFunctionTool(tool as FunctionToolLike);
    return tools;
  };
}

/**
 * Replaces the tool's `invoke` in place (the runner matches tools by object
 * and name, so a copy would not do). When no instrumentation is enabled the
 * replacement calls straight through.
 */
function guardFunctionTool(tool: FunctionToolLike): void {
  if (tool?.type !== 'function' || typeof tool.invoke !== 'function' || typeof tool.name !== 'string') return;
  const record = tool as Record<PropertyKey, unknown>;
  if (record[ORIGINAL_INVOKE]) return;
  const originalInvoke = tool.invoke as InvokeFn;
  const name = tool.name;
  Object.defineProperty(record, ORIGINAL_INVOKE, { value: originalInvoke });
  tool.invoke = async function loopguardInvoke(this: unknown, runContext: unknown, input: string, details?: unknown): Promise<unknown> {
    const instrumentation = instances.current;
    if (!instrumentation || insideGuardedToolCall()) return originalInvoke.call(this, runContext, input, details);
    const result = await instrumentation.guard().callTool(name, parseArguments(input), () => originalInvoke.call(this, runContext, input, details), {
      callId: callIdOf(details),
      attributes: { [ATTR_LOOPGUARD_FRAMEWORK]: 'openai-agents' },
    });
    return isNotExecuted(result) ? result.message : result;
  } satisfies InvokeFn;
}
