import { AsyncLocalStorage } from 'node:async_hooks';
import {
  InstrumentationBase,
  InstrumentationNodeModuleDefinition,
  InstrumentationNodeModuleFile,
  isWrapped,
} from '@opentelemetry/instrumentation';
import { LoopBreakError } from '../../../src/breaker.js';
import { VERSION } from '../../../src/version.js';
import { setToolOutcome } from '../../outcome.js';
import { ATTR_LOOPGUARD_FRAMEWORK, insideGuardedToolCall, isNotExecuted } from '../shared/guard-like.js';
import { EnabledInstances } from '../shared/guard-like.js';
import type { LoopguardInstrumentationConfig } from '../shared/guard-like.js';
import { withModule } from '../shared/load.js';
import { patchGraphs, unpatchGraphs, type GraphLike } from './graph-runs.js';
import { CHAT_MODELS_MODULE, patchChatModels, unpatchChatModels, type ChatModelsModule } from './model-turns.js';

const CORE_VERSIONS = ['>=0.3.0 <2'];
const LANGGRAPH_VERSIONS = ['>=0.2.0 <2'];
/** The modules whose ESM copies are patched without loader hooks. */
export const LANGCHAIN_MODULES = ['@langchain/core/tools', '@langchain/langgraph/prebuilt', '@langchain/langgraph/pregel', CHAT_MODELS_MODULE] as const;

type CallFn = (this: StructuredToolLike, arg: unknown, config?: unknown, tags?: unknown) => Promise<unknown>;
type RunToolFn = (this: unknown, call: unknown, config: unknown, state?: unknown) => Promise<unknown>;

interface StructuredToolLike {
  name: string;
  _call: (...args: unknown[]) => unknown;
}
interface ToolCallLike {
  type?: string;
  id?: string;
  name: string;
  args: unknown;
}
interface ToolMessageLike {
  content: unknown;
  tool_call_id: string;
  status?: string;
}

interface ToolsModule {
  StructuredTool?: { prototype: { call: CallFn } };
}
interface ToolNodeModule {
  ToolNode?: { prototype: { runTool: RunToolFn } };
}
interface PregelModule {
  Pregel?: { prototype: GraphLike };
}

/** LangChain's own test for a tool call (`_isToolCall`): the shape ToolNode invokes tools with. */
function asToolCall(arg: unknown): ToolCallLike | undefined {
  if (typeof arg !== 'object' || arg === null) return undefined;
  const a = arg as Record<string, unknown>;
  return a.type === 'tool_call' && 'args' in a ? (a as unknown as ToolCallLike) : undefined;
}

function configToolCallId(config: unknown): string | undefined {
  const id = (config as { toolCall?: { id?: unknown } } | undefined)?.toolCall?.id;
  return typeof id === 'string' ? id : undefined;
}

function isToolMessage(value: unknown): value is ToolMessageLike {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { _getType?: unknown; getType?: unknown; tool_call_id?: unknown };
  const type = typeof v.getType === 'function' ? (v.getType as () => string).call(v) : typeof v._getType === 'function' ? (v._getType as () => string).call(v) : undefined;
  return type === 'tool' && typeof v.tool_call_id === 'string';
}

/** The enabled instance whose guard the patched prototypes use: patches are shared, the last enabled instance serves them. */
const instances = new EnabledInstances<LangChainInstrumentation>();
const currentGuard = () => instances.current?.guard();

/** Where a LoopBreakError raised by a tool waits for the ToolNode that ran it, which would otherwise turn it into a message. */
const pendingBreak = new AsyncLocalStorage<{ error?: LoopBreakError }>();

/**
 * LangChain.js / LangGraph.js: every tool kind (`tool()`, DynamicStructuredTool,
 * DynamicTool, StructuredTool subclasses) runs through
 * `StructuredTool.prototype.call`, and LangGraph's `ToolNode.runTool` turns
 * tool errors into `ToolMessage{status:'error'}`. Both prototypes are
 * patched: the first routes calls through the guard, the second lets a
 * LoopBreakError stop the graph instead of becoming a message.
 */
export class LangChainInstrumentation extends InstrumentationBase<LoopguardInstrumentationConfig> {
  /** Settles when the ESM copies of the modules (if installed) are patched. */
  declare ready: Promise<void>;
  /** Copies patched outside the module hooks, which `disable()` must restore itself. */
  declare private eager: { tools?: ToolsModule; toolNode?: ToolNodeModule; pregel?: PregelModule; chatModels?: ChatModelsModule } | undefined;

  constructor(config: LoopguardInstrumentationConfig) {
    super('loopguard-instrumentation-langchain', VERSION, config);
  }

  protected init() {
    const tools = (file: string) =>
      new InstrumentationNodeModuleFile(`@langchain/core/dist/tools/${file}`, CORE_VERSIONS, (m: ToolsModule) => this.patchTools(m), (m?: ToolsModule) => this.unpatchTools(m));
    const toolNode = (file: string) =>
      new InstrumentationNodeModuleFile(`@langchain/langgraph/dist/prebuilt/${file}`, LANGGRAPH_VERSIONS, (m: ToolNodeModule) => this.patchToolNode(m), (m?: ToolNodeModule) => this.unpatchToolNode(m));
    const pregel = (file: string) =>
      new InstrumentationNodeModuleFile(`@langchain/langgraph/dist/pregel/${file}`, LANGGRAPH_VERSIONS, (m: PregelModule) => patchGraphs(m, this, currentGuard), (m?: PregelModule) => unpatchGraphs(m, this));
    const chatModels = (file: string) =>
      new InstrumentationNodeModuleFile(`@langchain/core/dist/language_models/${file}`, CORE_VERSIONS, (m: ChatModelsModule) => patchChatModels(m, this, currentGuard), (m?: ChatModelsModule) => unpatchChatModels(m, this));
    return [
      new InstrumentationNodeModuleDefinition('@langchain/core', CORE_VERSIONS, undefined, undefined, [tools('index.cjs'), tools('index.js'), chatModels('chat_models.cjs'), chatModels('chat_models.js')]),
      new InstrumentationNodeModuleDefinition('@langchain/langgraph', LANGGRAPH_VERSIONS, undefined, undefined, [
        toolNode('tool_node.cjs'),
        toolNode('tool_node.js'),
        pregel('index.cjs'),
        pregel('index.js'),
      ]),
    ];
  }

  override enable(): void {
    super.enable();
    instances.add(this);
    this.ready = this.patchLoadedEsm();
  }

  override disable(): void {
    super.disable();
    instances.remove(this);
    this.unpatchTools(this.eager?.tools);
    this.unpatchToolNode(this.eager?.toolNode);
    unpatchGraphs(this.eager?.pregel, this);
    unpatchChatModels(this.eager?.chatModels, this);
    this.eager = undefined;
  }

  /** The guard calls go to now. */
  guard() {
    return this.getConfig().guard;
  }

  /** InstrumentationBase's wrapping, for the graph patches of graph-runs.ts. */
  wrapMethod<T extends object>(target: T, name: keyof T & string, wrapper: (original: never) => unknown): void {
    this._wrap(target, name, wrapper as never);
  }

  unwrapMethod<T extends object>(target: T, name: keyof T & string): void {
    this._unwrap(target, name);
  }

  wrapRunTool(original: never): unknown {
    return wrapRunTool(original);
  }

  /** Each module is patched as soon as it is loaded (synchronously when preloaded), independently of the other. */
  private patchLoadedEsm(): Promise<void> {
    this.eager = {};
    const [tools, prebuilt, pregel, chatModels] = LANGCHAIN_MODULES;
    return Promise.all([
      withModule(tools, (m) => {
        if (this.isEnabled() && this.eager) this.eager.tools = this.patchTools(m as ToolsModule);
      }),
      withModule(prebuilt, (m) => {
        if (this.isEnabled() && this.eager) this.eager.toolNode = this.patchToolNode(m as ToolNodeModule);
      }),
      withModule(pregel, (m) => {
        if (this.isEnabled() && this.eager) this.eager.pregel = patchGraphs(m as PregelModule, this, currentGuard);
      }),
      withModule(chatModels, (m) => {
        if (this.isEnabled() && this.eager) this.eager.chatModels = patchChatModels(m as ChatModelsModule, this, currentGuard);
      }),
    ]).then(() => undefined);
  }

  private patchTools(moduleExports: ToolsModule): ToolsModule {
    const proto = moduleExports?.StructuredTool?.prototype;
    if (proto && !isWrapped(proto.call)) this._wrap(proto, 'call', (original) => this.wrapCall(original));
    return moduleExports;
  }

  private unpatchTools(moduleExports?: ToolsModule): void {
    const proto = moduleExports?.StructuredTool?.prototype;
    if (proto && isWrapped(proto.call)) this._unwrap(proto, 'call');
  }

  private patchToolNode(moduleExports: ToolNodeModule): ToolNodeModule {
    const proto = moduleExports?.ToolNode?.prototype;
    if (proto && !isWrapped(proto.runTool)) this._wrap(proto, 'runTool', (original) => wrapRunTool(original));
    return moduleExports;
  }

  private unpatchToolNode(moduleExports?: ToolNodeModule): void {
    const proto = moduleExports?.ToolNode?.prototype;
    if (proto && isWrapped(proto.runTool)) this._unwrap(proto, 'runTool');
  }

  private wrapCall(original: CallFn): CallFn {
    return async function loopguardCall(this: StructuredToolLike, arg: unknown, config?: unknown, tags?: unknown): Promise<unknown> {
      const instrumentation = instances.current;
      if (!instrumentation || insideGuardedToolCall()) return original.call(this, arg, config, tags);
      const toolCall = asToolCall(arg);
      const callId = toolCall?.id ?? configToolCallId(config);
      // When the tool runs from a tool call, LangChain wraps its return in a
      // ToolMessage whose ids change every call: the guard fingerprints and
      // nudges the content the model reads, and the message is rebuilt around it.
      let message: ToolMessageLike | undefined;
      const execute = async () => {
        const out = await original.call(this, arg, config, tags);
        if (!isToolMessage(out)) return out;
        message = out;
        if (out.status === 'error') setToolOutcome('error');
        return out.content;
      };
      let result: unknown;
      try {
        result = await instrumentation.guard().callTool(this.name, toolCall ? toolCall.args : arg, execute, {
          callId,
          attributes: { [ATTR_LOOPGUARD_FRAMEWORK]: 'langchain' },
        });
      } catch (err) {
        if (err instanceof LoopBreakError) {
          const slot = pendingBreak.getStore();
          if (slot) slot.error = err;
        }
        throw err;
      }
      if (isNotExecuted(result)) return blockedOutput(this, original, result.message, arg, config, tags);
      if (message) {
        message.content = result;
        return message;
      }
      return result;
    };
  }
}

/**
 * A blocked call answers in the tool's own output format: the original
 * `call` runs with `_call` replaced by the "not executed" text, so callbacks
 * and tracers see the call and a tool call still gets its ToolMessage.
 */
function blockedOutput(tool: StructuredToolLike, original: CallFn, text: string, arg: unknown, config: unknown, tags: unknown): Promise<unknown> {
  const stand = Object.create(tool, { _call: { value: async () => text } }) as StructuredToolLike;
  return original.call(stand, arg, config, tags);
}

function wrapRunTool(original: RunToolFn): RunToolFn {
  return async function loopguardRunTool(this: unknown, call: unknown, config: unknown, state?: unknown): Promise<unknown> {
    const slot: { error?: LoopBreakError } = {};
    const out = await pendingBreak.run(slot, () => original.call(this, call, config, state));
    // ToolNode has turned the break into an error ToolMessage for the model; stop the graph instead.
    if (slot.error) throw slot.error;
    return out;
  };
}
