import {
  InstrumentationBase,
  InstrumentationNodeModuleDefinition,
  InstrumentationNodeModuleFile,
  isWrapped,
} from '@opentelemetry/instrumentation';
import { VERSION } from '../../../src/version.js';
import { ATTR_LOOPGUARD_FRAMEWORK, insideGuardedToolCall, isNotExecuted, parseArguments } from '../shared/guard-like.js';
import { EnabledInstances } from '../shared/guard-like.js';
import type { LoopguardInstrumentationConfig } from '../shared/guard-like.js';
import { withModule } from '../shared/load.js';

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
interface AgentModule {
  Agent?: { prototype: { getAllTools: GetAllToolsFn } };
}

/** Marks a tool whose `invoke` already goes through loopguard, and keeps the original. */
const ORIGINAL_INVOKE = Symbol.for('loopguard.openai-agents.originalInvoke');

const instances = new EnabledInstances<OpenAIAgentsInstrumentation>();

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
    return new InstrumentationNodeModuleDefinition('@openai/agents-core', AGENTS_VERSIONS, undefined, undefined, [agent('agent.js'), agent('agent.mjs')]);
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
    return moduleExports;
  }

  private unpatch(moduleExports?: AgentModule): void {
    const proto = moduleExports?.Agent?.prototype;
    if (proto && isWrapped(proto.getAllTools)) this._unwrap(proto, 'getAllTools');
  }
}

function wrapGetAllTools(original: GetAllToolsFn): GetAllToolsFn {
  return async function loopguardGetAllTools(this: unknown, ...args: unknown[]): Promise<unknown> {
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
