export { register, type RegisterOptions, type ExporterChoice } from './register.js';
export { REGISTER_DEFAULTS } from './defaults.js';
export {
  Guard,
  type GuardedTool,
  type GuardOptions,
  type LoopAction,
  type ModelResponse,
  type ModelResponseInfo,
} from './guard.js';
export type { CompleteEvent, OpenRun, RunHandle, RunOptions } from './agent-run.js';
export { appendNudge } from './append-nudge.js';
export type { LoopEvent } from './loop-event.js';
export type { ToolCallInfo } from './tool-call.js';
export { isNotExecuted, type NotExecutedResult } from './verdict-actions.js';
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
