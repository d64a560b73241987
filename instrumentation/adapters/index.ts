import type { Instrumentation } from '@opentelemetry/instrumentation';
import { AI_MODULE, AiSdkInstrumentation } from './ai-sdk/instrumentation.js';
import type { AiSdkInstrumentationConfig } from './ai-sdk/instrumentation.js';
import { LANGCHAIN_MODULES, LangChainInstrumentation } from './langchain/instrumentation.js';
import { MCP_CLIENT_MODULE, McpClientInstrumentation } from './mcp/instrumentation.js';
import { OPENAI_AGENTS_MODULE, OpenAIAgentsInstrumentation } from './openai-agents/instrumentation.js';
import { aliasesOf, preloadModules } from './shared/load.js';
import type { ToolCallGuard } from './shared/guard-like.js';
import { LoopGuardConfigError } from '../../src/options.js';

export { AiSdkInstrumentation, LangChainInstrumentation, McpClientInstrumentation, OpenAIAgentsInstrumentation };
export type { AiSdkInstrumentationConfig, ToolCallGuard };
export type { LoopguardInstrumentationConfig } from './shared/guard-like.js';

export type FrameworkName = 'ai-sdk' | 'langchain' | 'mcp' | 'openai-agents';

export interface FrameworkOptions {
  /** Which adapters to enable. default: all (each one is inert when its framework is not installed). */
  frameworks?: FrameworkName[];
  /** Package names ai@6 is installed under. default ['ai'] */
  aiModules?: string[];
}

/** An enabled adapter, and a promise that settles when it has patched the framework copies already loadable. */
export type FrameworkInstrumentation = Instrumentation & { ready: Promise<void> };

const ALL: FrameworkName[] = ['ai-sdk', 'langchain', 'mcp', 'openai-agents'];

/** One set of adapters per guard and framework: asking again (register() and user code both may) returns the same ones. */
const created = new WeakMap<ToolCallGuard, Map<FrameworkName, FrameworkInstrumentation>>();
/** The module list each AI SDK adapter was made with. */
const aiModulesOf = new WeakMap<FrameworkInstrumentation, string>();

/**
 * The framework adapters `register()` enables: each routes its framework's
 * tool calls through `guard.callTool`. Constructing them enables them
 * (OpenTelemetry's InstrumentationBase does); `disable()` undoes it.
 */
export function frameworkInstrumentations(guard: ToolCallGuard, options: FrameworkOptions = {}): FrameworkInstrumentation[] {
  let existing = created.get(guard);
  if (!existing) created.set(guard, (existing = new Map()));
  const make: Record<FrameworkName, () => FrameworkInstrumentation> = {
    'ai-sdk': () => new AiSdkInstrumentation({ guard, ...(options.aiModules ? { aiModules: options.aiModules } : {}) }),
    langchain: () => new LangChainInstrumentation({ guard }),
    mcp: () => new McpClientInstrumentation({ guard }),
    'openai-agents': () => new OpenAIAgentsInstrumentation({ guard }),
  };
  const aiModules = JSON.stringify(options.aiModules ?? null);
  return (options.frameworks ?? ALL).map((name) => {
    let instrumentation = existing.get(name);
    if (!instrumentation) {
      existing.set(name, (instrumentation = make[name]()));
      if (name === 'ai-sdk') aiModulesOf.set(instrumentation, aiModules);
    } else if (name === 'ai-sdk' && aiModulesOf.get(instrumentation) !== aiModules) {
      // Silently keeping the first adapter would leave the modules asked for now unpatched.
      throw new LoopGuardConfigError(
        'aiModules',
        'the same list as when this guard\'s AI SDK adapter was created (configure it once, e.g. register({ instrumentations: { aiModules } }))',
        options.aiModules,
      );
    }
    return instrumentation;
  });
}

/** Settles when every adapter has patched what it could load (ESM copies are patched asynchronously). */
export async function frameworksReady(instrumentations: FrameworkInstrumentation[]): Promise<void> {
  await Promise.all(instrumentations.map((i) => i.ready));
}

/**
 * Imports the installed frameworks' ESM copies before the application runs
 * (loopguard's entry awaits it), so `register()` patches them synchronously
 * and an agent started right after it is guarded from its first call.
 */
export function preloadFrameworks(): Promise<void> {
  return preloadModules([AI_MODULE, ...aliasesOf(AI_MODULE), ...LANGCHAIN_MODULES, MCP_CLIENT_MODULE, OPENAI_AGENTS_MODULE]);
}
