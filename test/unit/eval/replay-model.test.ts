import { describe, expect, it } from 'vitest';
import { modelTurnAttributes } from '../../../src/eval/replay.js';
import { chantRepeats } from '../../../src/fingerprint/chanting.js';
import { outputSketch, readModelTurn } from '../../../src/model-span.js';

describe('a replayed model turn', () => {
  const secret = 'sk-live-9f8e7d6c5b4a39281706f5e4d3c2b1a0';
  const text = `Here is the configuration you asked for. The API key is ${secret}; keep it out of the repository and rotate it after the demo.`;
  const step = { kind: 'model', outputTokens: 42, inputTokens: 900, finishReason: 'stop', text, final: true, t: undefined } as const;

  it('is the LLM span a client makes with content capture off: usage, finish reason and the sketch of the text, never the text; a final answer is marked so', () => {
    const attributes = modelTurnAttributes(step);
    expect(attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.output_tokens': 42,
      'gen_ai.usage.input_tokens': 900,
      'gen_ai.response.finish_reasons': ['stop'],
      'loopguard.output.sketch': outputSketch(text),
      'loopguard.response.final': true,
    });
    expect(JSON.stringify(attributes)).not.toContain(secret.slice(8));
    expect(modelTurnAttributes({ ...step, final: false })['loopguard.response.final']).toBeUndefined();
  });

  it('reads back as the same model turn the processor judges', () => {
    expect(readModelTurn(modelTurnAttributes(step))).toEqual({ inputTokens: 900, outputTokens: 42, finishReason: 'stop', sketch: outputSketch(text) });
    const chant = `${text} ${'I will check the key again before I answer. '.repeat(20)}`;
    const chanting = readModelTurn(modelTurnAttributes({ ...step, text: chant }));
    expect(chanting).toEqual({ inputTokens: 900, outputTokens: 42, finishReason: 'stop', sketch: outputSketch(chant), chant: chantRepeats(chant) });
    expect(chanting?.chant).toBeGreaterThanOrEqual(19);
  });

  it('is judged by the same sketch whether the text came as captured output messages or as a sketch', () => {
    const captured = { 'gen_ai.operation.name': 'chat', 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: text }] }]) };
    expect(readModelTurn(captured)?.sketch).toBe(outputSketch(text));
    expect(readModelTurn({ 'gen_ai.operation.name': 'chat', 'gen_ai.output.messages': 'not json' })?.sketch).toBeUndefined();
    expect(readModelTurn({ 'gen_ai.operation.name': 'execute_tool' })).toBeUndefined();
  });
});
