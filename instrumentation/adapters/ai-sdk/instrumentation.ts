import {
  InstrumentationBase,
  InstrumentationNodeModuleDefinition,
  isWrapped,
} from '@opentelemetry/instrumentation';
import { VERSION } from '../../../src/version.js';
import { EnabledInstances } from '../shared/guard-like.js';
import type { LoopguardInstrumentationConfig } from '../shared/guard-like.js';
import { withModule } from '../shared/load.js';
import { adviseOnUnpatchedAi6 } from './esm-advice.js';
import { LoopguardAiSdkTelemetry } from './telemetry.js';
import { wrapAgentGenerate, wrapGenerateText, wrapPrepareCall, wrapStreamText } from './v6-stop.js';
import { rememberingStepCountIs } from './completion-gate.js';
import { wrapV7Generation, wrapV7PrepareCall } from './v7-hidden-prompt.js';

const V6 = ['>=6.0.0 <7'];
const V7 = ['>=7.0.0 <8'];
/** The package name ai is installed under by default. */
export const AI_MODULE = 'ai';

export interface AiSdkInstrumentationConfig extends LoopguardInstrumentationConfig {
  /**
   * Package names under which ai@6 or ai@7 is installed, for the module
   * hooks and the eager patch of `ToolLoopAgent`. default ['ai'] (an app
   * that installs a second major under an alias lists the alias too). Read
   * when the instrumentation is created.
   */
  aiModules?: string[];
}

type AnyFn = (...args: never[]) => unknown;
interface AiModule {
  registerTelemetryIntegration?: unknown;
  registerTelemetry?: unknown;
  stepCountIs?: (n: number) => unknown;
  generateText?: AnyFn;
  streamText?: AnyFn;
  ToolLoopAgent?: { prototype: { prepareCall?: AnyFn; generate?: AnyFn } };
}

interface GlobalWithIntegrations {
  AI_SDK_TELEMETRY_INTEGRATIONS?: unknown[];
}

const instances = new EnabledInstances<AiSdkInstrumentation>();
const currentGuard = () => instances.current?.getConfig().guard;

/**
 * Vercel AI SDK, ai@6 and ai@7. The tool calls are guarded through the
 * SDK's global telemetry integrations (see telemetry.ts): no module
 * patching, ESM and CJS alike, as long as the call does not pass its own
 * `telemetry.integrations` list (ai@7 then ignores the global ones; add
 * `aiSdkTelemetry(guard)` to that list) or disable telemetry.
 * For ai@6 the break also has to stop the loop: `ToolLoopAgent` is patched
 * on its prototype (no hooks needed) and `generateText`/`streamText` as
 * module exports (require hook under CJS, import-in-the-middle under ESM).
 * ai@7 is patched the same way for calls whose telemetry hides their
 * inputs, so messages reach the model (see v7-hidden-prompt.ts).
 */
export class AiSdkInstrumentation extends InstrumentationBase<AiSdkInstrumentationConfig> {
  declare ready: Promise<void>;
  declare private telemetry: LoopguardAiSdkTelemetry;
  /** Copies whose ToolLoopAgent was patched outside the module hooks, which `disable()` must restore itself. */
  declare private eager: AiModule[] | undefined;

  constructor(config: AiSdkInstrumentationConfig) {
    super('loopguard-instrumentation-ai-sdk', VERSION, config);
  }

  protected init() {
    return (this.getConfig().aiModules ?? [AI_MODULE]).map(
      (name) => new InstrumentationNodeModuleDefinition(name, [...V6, ...V7], (m: AiModule) => (isV6(m) ? this.patchV6(m) : this.patchV7(m)), (m?: AiModule) => this.unpatchAgent(m)),
    );
  }

  override enable(): void {
    super.enable();
    instances.add(this);
    this.telemetry ??= new LoopguardAiSdkTelemetry(currentGuard);
    const g = globalThis as GlobalWithIntegrations;
    g.AI_SDK_TELEMETRY_INTEGRATIONS ??= [];
    // First in the list runs innermost: inside the context of any tracing integration
    // (@ai-sdk/otel), so its execute_tool span is the parent loopguard sees.
    if (!g.AI_SDK_TELEMETRY_INTEGRATIONS.includes(this.telemetry)) g.AI_SDK_TELEMETRY_INTEGRATIONS.unshift(this.telemetry);
    this.ready = this.patchLoadedEsm();
  }

  override disable(): void {
    super.disable();
    instances.remove(this);
    const list = (globalThis as GlobalWithIntegrations).AI_SDK_TELEMETRY_INTEGRATIONS;
    const at = list?.indexOf(this.telemetry) ?? -1;
    if (list && at >= 0) list.splice(at, 1);
    for (const m of this.eager ?? []) this.unpatchAgent(m);
    this.eager = undefined;
  }

  /** The integration object, for calls that pass their own `telemetry.integrations`. */
  integration(): LoopguardAiSdkTelemetry {
    return this.telemetry;
  }

  private patchLoadedEsm(): Promise<void> {
    const patches = (this.getConfig().aiModules ?? [AI_MODULE]).map((name) =>
      withModule(name, (loaded) => {
        const m = loaded as AiModule;
        if (!this.isEnabled()) return;
        if (isV6(m)) {
          this.patchAgent(m);
          adviseOnUnpatchedAi6(name, m.generateText);
        } else if (isV7(m)) {
          this.patchAgentV7(m);
        } else return;
        (this.eager ??= []).push(m);
      }),
    );
    return Promise.all(patches).then(() => undefined);
  }

  /** Module hook (require-in-the-middle, or import-in-the-middle when its loader is registered). */
  private patchV6(moduleExports: AiModule): AiModule {
    if (!isV6(moduleExports)) return moduleExports;
    this.patchAgent(moduleExports);
    const stepCountIs = moduleExports.stepCountIs!;
    const generateText = moduleExports.generateText;
    const streamText = moduleExports.streamText;
    if (typeof generateText !== 'function' || typeof streamText !== 'function' || isWrapped(generateText)) return moduleExports;
    const replacements = {
      generateText: wrapGenerateText(generateText as never, stepCountIs, currentGuard),
      streamText: wrapStreamText(streamText as never, stepCountIs, currentGuard),
      // Conditions made through the module remember their limit: a run they end with tool calls pending is max_turns.
      stepCountIs: rememberingStepCountIs(stepCountIs),
    };
    return withExports(moduleExports, replacements);
  }

  /** Module hook for ai@7: only calls that hide their inputs from telemetry are changed (see v7-hidden-prompt.ts). */
  private patchV7(moduleExports: AiModule): AiModule {
    if (!isV7(moduleExports)) return moduleExports;
    this.patchAgentV7(moduleExports);
    const { generateText, streamText } = moduleExports;
    if (typeof generateText !== 'function' || typeof streamText !== 'function' || isWrapped(generateText)) return moduleExports;
    return withExports(moduleExports, { generateText: wrapV7Generation(generateText as never, currentGuard), streamText: wrapV7Generation(streamText as never, currentGuard) });
  }

  private unpatchAgent(moduleExports?: AiModule): void {
    const proto = moduleExports?.ToolLoopAgent?.prototype;
    if (proto && isWrapped(proto.prepareCall)) this._unwrap(proto, 'prepareCall');
    if (proto && isWrapped(proto.generate)) this._unwrap(proto, 'generate');
  }

  private patchAgent(moduleExports: AiModule): void {
    const proto = moduleExports.ToolLoopAgent?.prototype;
    const stepCountIs = moduleExports.stepCountIs;
    if (!proto || typeof stepCountIs !== 'function') return;
    if (typeof proto.prepareCall === 'function' && !isWrapped(proto.prepareCall)) this._wrap(proto, 'prepareCall', (original) => wrapPrepareCall(original as never, stepCountIs, currentGuard) as never);
    if (typeof proto.generate === 'function' && !isWrapped(proto.generate)) this._wrap(proto, 'generate', (original) => wrapAgentGenerate(original as never, currentGuard) as never);
  }

  private patchAgentV7(moduleExports: AiModule): void {
    const proto = moduleExports.ToolLoopAgent?.prototype;
    if (proto && typeof proto.prepareCall === 'function' && !isWrapped(proto.prepareCall)) this._wrap(proto, 'prepareCall', (original) => wrapV7PrepareCall(original as never, currentGuard) as never);
  }
}

function withExports(moduleExports: AiModule, replacements: Partial<AiModule>): AiModule {
  try {
    // An import-in-the-middle namespace accepts assignments.
    Object.assign(moduleExports, replacements);
    return moduleExports;
  } catch {
    // A CJS build exports read-only getters: hand back a patched copy instead.
    return Object.assign(Object.create(null) as AiModule, moduleExports, replacements);
  }
}

/** ai@6 exports `registerTelemetryIntegration`; ai@7 renamed it `registerTelemetry`. */
function isV6(m: AiModule): boolean {
  return typeof m.registerTelemetryIntegration === 'function';
}

function isV7(m: AiModule): boolean {
  return typeof m.registerTelemetry === 'function' && !isV6(m);
}
