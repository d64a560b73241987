import { convertArrayToReadableStream } from 'ai/test';
import type { ScriptedTurn } from './model-turns.js';
import type { ScriptedCall } from './trajectory.js';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/**
 * A `doGenerate` for the AI SDK's own MockLanguageModelV3/V4: each model
 * call answers with the next scripted tool call, then with text.
 */
export function scriptedDoGenerate(calls: ScriptedCall[], finalText = 'done') {
  let turn = 0;
  return async () => {
    const call = calls[turn];
    turn += 1;
    if (!call) return { content: [{ type: 'text' as const, text: finalText }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] };
    return {
      content: [{ type: 'tool-call' as const, toolCallId: `call_${turn}`, toolName: call.tool, input: JSON.stringify(call.args) }],
      finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
      usage,
      warnings: [],
    };
  };
}

export function answersFor(calls: ScriptedCall[]): (query: string) => string {
  const answers = new Map(calls.map((c) => [String(c.args.query), c.result]));
  return (query) => answers.get(query) ?? 'nothing';
}

function turnResult(t: ScriptedTurn) {
  return {
    finishReason: { unified: t.finishReason, raw: t.finishReason },
    usage: { inputTokens: usage.inputTokens, outputTokens: { total: t.outputTokens, text: t.outputTokens, reasoning: undefined } },
  };
}

/** A `doGenerate` for MockLanguageModelV3/V4 answering with one scripted text response per model call. */
export function turnsDoGenerate(turns: ScriptedTurn[]) {
  let turn = 0;
  return async () => {
    const t = turns[turn++]!;
    return { content: [{ type: 'text' as const, text: t.text }], ...turnResult(t), warnings: [] };
  };
}

/** The same responses streamed, for `doStream`. */
export function turnsDoStream(turns: ScriptedTurn[]) {
  let turn = 0;
  return async () => {
    const t = turns[turn++]!;
    const parts = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: t.text },
      { type: 'text-end', id: 't' },
      { type: 'finish', ...turnResult(t) },
    ];
    return { stream: convertArrayToReadableStream(parts) };
  };
}
