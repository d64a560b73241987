export { register, type RegisterOptions, type ExporterChoice } from './register.js';
export { REGISTER_DEFAULTS } from './defaults.js';
export {
  Guard,
  appendNudge,
  isNotExecuted,
  type GuardedTool,
  type CompleteEvent,
  type GuardOptions,
  type LoopAction,
  type LoopEvent,
  type ModelResponse,
  type ModelResponseInfo,
  type NotExecutedResult,
  type OpenRun,
  type RunHandle,
  type RunOptions,
  type ToolCallInfo,
} from './guard.js';
export type { CaptureOptions } from './capture.js';
export { setToolOutcome } from './outcome.js';
export {
  frameworkInstrumentations,
  frameworksReady,
  AiSdkInstrumentation,
  LangChainInstrumentation,
  McpClientInstrumentation,
  OpenAIAgentsInstrumentation,
  type FrameworkInstrumentation,
  type FrameworkName,
  type FrameworkOptions,
} from './adapters/index.js';
export * from '../src/index.js';

import { preloadFrameworks } from './adapters/index.js';
// ESM modules can only be imported asynchronously: importing loopguard waits for the installed
// frameworks, so register() patches them at once and the first agent run is guarded.
await preloadFrameworks();
