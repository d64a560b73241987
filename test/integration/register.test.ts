import { ProxyTracerProvider, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { LoopGuardConfigError, register, type RegisterOptions } from '../../instrumentation/index.js';
import { createHarness } from '../support/harness.js';

function rejects(options: unknown, option: string, mention: RegExp): void {
  let error: unknown;
  try {
    register(options as RegisterOptions);
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(LoopGuardConfigError);
  expect((error as LoopGuardConfigError).option).toBe(option);
  expect((error as Error).message).toMatch(mention);
}

describe('register()', () => {
  it('sets up a provider whose exporter receives annotated tool spans and the run summary', async () => {
    const exporter = new InMemorySpanExporter();
    const guard = register({ serviceName: 'svc-under-test', exporter, global: false, instrumentations: false });
    await guard.run('agent', async () => {
      for (let i = 0; i < 3; i++) await guard.callTool('search', { q: 'same' }, () => ({ hits: [] }));
    });
    await guard.flush();
    const spans = exporter.getFinishedSpans();
    await guard.shutdown();
    const tools = spans.filter((s) => s.name === 'execute_tool search');
    expect(tools).toHaveLength(3);
    expect(tools[2]!.attributes['loopguard.level']).toBe('warning');
    expect(tools[0]!.resource.attributes['service.name']).toBe('svc-under-test');
    const root = spans.find((s) => s.name === 'invoke_agent agent')!;
    expect(root.attributes['loopguard.run.max_level']).toBe('warning');
  });

  it('fails at once on invalid options, naming the option and what it accepts', () => {
    rejects({ preset: 'fast' }, 'preset', /one of "balanced", "aggressive", "conservative"/);
    rejects({ exporter: 'jaeger' }, 'exporter', /a SpanExporter or one of "none", "otlp", "console"/);
    rejects({ onBlock: 'skip' }, 'onBlock', /one of "result", "throw"/);
    rejects({ onLoop: 'log' }, 'onLoop', /a function/);
    rejects({ serviceName: '' }, 'serviceName', /non-empty string/);
    rejects({ window: 1000 }, 'window', /integer from 4 to 256/);
    rejects({ maxToolCals: 10 }, 'maxToolCals', /known options "maxToolCalls", /);
    rejects({ instrumentations: 'all' }, 'instrumentations', /true, false/);
    rejects({ processor: {} }, 'tracerProvider', /attach mode needs both/);
  });

  it('refuses processor options in attach mode, where they would be dropped', async () => {
    const h = createHarness();
    rejects({ tracerProvider: h.provider, processor: h.processor, window: 10 }, 'window', /set on the LoopGuardSpanProcessor you pass/);
    await h.close();
  });

  it('validates every option at once, closest accepted value first, and sets nothing up when one is wrong', () => {
    const before = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate();
    let error: LoopGuardConfigError | undefined;
    try {
      register({
        instrumentations: { frameworks: ['langgraph'], framework: ['mcp'] },
        appendNudge: 'no',
        captureContent: 'yes',
        serviceNmae: 'svc',
        onloop: () => undefined,
        maxRuns: 0,
      } as unknown as RegisterOptions);
    } catch (err) {
      error = err as LoopGuardConfigError;
    }
    expect(error).toBeInstanceOf(LoopGuardConfigError);
    const byOption = new Map(error!.problems.map((p) => [p.option, p.expected]));
    expect([...byOption.keys()].sort()).toEqual(
      ['appendNudge', 'captureContent', 'instrumentations.framework', 'instrumentations.frameworks', 'maxRuns', 'onloop', 'serviceNmae'].sort(),
    );
    expect(byOption.get('instrumentations.frameworks')).toMatch(/^framework names from "langchain", /);
    expect(byOption.get('instrumentations.framework')).toMatch(/^one of the known options "frameworks", "aiModules"$/);
    expect(byOption.get('serviceNmae')).toMatch(/^one of the known options "serviceName", /);
    expect(byOption.get('onloop')).toMatch(/^one of the known options "onLoop", /);
    expect(error!.message).toMatch(/^loopguard: 7 invalid options:/);
    // Nothing was registered: the global tracer provider is the one from before.
    expect((trace.getTracerProvider() as ProxyTracerProvider).getDelegate()).toBe(before);
  });
});

describe('guard.callTool', () => {
  it('counts a wrapped tool called from inside its own guarded call once', async () => {
    const h = createHarness();
    const inner = h.guard.wrapTool('search', async (q: string) => `result for ${q}`);
    await h.guard.run('a', () => h.guard.callTool('search', 'x', () => inner('x')));
    expect(h.toolSpans()).toHaveLength(1);
    expect(h.toolSpans()[0]!.attributes['loopguard.step']).toBe(1);
    await h.close();
  });

  it('takes a span name and kind for protocol clients', async () => {
    const h = createHarness();
    await h.guard.run('a', () => h.guard.callTool('lookup', {}, () => 1, { spanName: 'tools/call lookup', kind: SpanKind.CLIENT }));
    const [span] = h.toolSpans();
    expect(span!.name).toBe('tools/call lookup');
    expect(span!.kind).toBe(SpanKind.CLIENT);
    expect(span!.attributes['loopguard.step']).toBe(1);
    await h.close();
  });
});
