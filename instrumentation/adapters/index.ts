import type { Instrumentation } from '@opentelemetry/instrumentation';
import { AiSdkInstrumentation } from './ai-sdk/instrumentation.js';
import type { AiSdkInstrumentationConfig } from './ai-sdk/instrumentation.js';
import { LangChainInstrumentation } from './langchain/instrumentation.js';
import { McpClientInstrumentation } from './mcp/instrumentation.js';
import { OpenAIAgentsInstrumentation } from './openai-agents/instrumentation.js';
import type { ToolCallGuard } from './shared/guard-like.js';

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
  return (options.frameworks ?? ALL).map((name) => {
    let instrumentation = existing.get(name);
    if (!instrumentation) existing.set(name, (instrumentation = make[name]()));
    return instrumentation;
  });
}

/** Settles when every adapter has patched what it could load (ESM copies are patched asynchronously). */
export async function frameworksReady(instrumentations: FrameworkInstrumentation[]): Promise<void> {
  await Promise.all(instrumentations.map((i) => i.ready));
}
