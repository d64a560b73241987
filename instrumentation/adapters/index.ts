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

/**
 * The framework adapters `register()` enables: each routes its framework's
 * tool calls through `guard.callTool`. Constructing them enables them
 * (OpenTelemetry's InstrumentationBase does); `disable()` undoes it.
 */
export function frameworkInstrumentations(guard: ToolCallGuard, options: FrameworkOptions = {}): FrameworkInstrumentation[] {
  const wanted = new Set(options.frameworks ?? ALL);
  const out: FrameworkInstrumentation[] = [];
  if (wanted.has('ai-sdk')) out.push(new AiSdkInstrumentation({ guard, ...(options.aiModules ? { aiModules: options.aiModules } : {}) }));
  if (wanted.has('langchain')) out.push(new LangChainInstrumentation({ guard }));
  if (wanted.has('mcp')) out.push(new McpClientInstrumentation({ guard }));
  if (wanted.has('openai-agents')) out.push(new OpenAIAgentsInstrumentation({ guard }));
  return out;
}

/** Settles when every adapter has patched what it could load (ESM copies are patched asynchronously). */
export async function frameworksReady(instrumentations: FrameworkInstrumentation[]): Promise<void> {
  await Promise.all(instrumentations.map((i) => i.ready));
}
