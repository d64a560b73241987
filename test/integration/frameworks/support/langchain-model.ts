import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import type { ScriptedTurn } from './model-turns.js';
import type { ScriptedCall } from './trajectory.js';

/**
 * LangChain's own FakeListChatModel, recording what it read. Its `bindTools`
 * upstream returns a plain copy (which would lose the recording), so it
 * returns the model itself; everything else is the real fake.
 */
abstract class RecordingFakeChatModel extends FakeListChatModel {
  /** The messages of every model call, as JSON text: what the model read. */
  readonly prompts: string[] = [];

  override async _generate(messages: BaseMessage[], options: this['ParsedCallOptions'], runManager?: Parameters<FakeListChatModel['_generate']>[2]) {
    this.prompts.push(JSON.stringify(messages.map((m) => m.content)));
    return super._generate(messages, options, runManager);
  }

  override bindTools(): this {
    return this;
  }
}

/**
 * The fake taught to answer with tool calls: each scripted response is a
 * JSON tool call (or plain text to finish). Upstream it only ever answers
 * with text.
 */
export class ScriptedToolCallingModel extends RecordingFakeChatModel {
  constructor(calls: ScriptedCall[], finalText = 'done') {
    super({ responses: [...calls.map((c, i) => JSON.stringify({ name: c.tool, args: c.args, id: `call_${i + 1}` })), finalText] });
  }

  override _formatGeneration(text: string) {
    let message: AIMessage;
    try {
      const call = JSON.parse(text) as { name: string; args: Record<string, unknown>; id: string };
      message = new AIMessage({ content: '', tool_calls: [{ type: 'tool_call', ...call }] });
    } catch {
      message = new AIMessage(text);
    }
    return { message, text };
  }
}

/**
 * The fake answering with scripted text turns, each message carrying the
 * usage and finish reason a provider reports (`usage_metadata`,
 * `response_metadata.finish_reason`).
 */
export class ScriptedWritingModel extends RecordingFakeChatModel {
  private turn = 0;

  constructor(private readonly turns: ScriptedTurn[]) {
    super({ responses: turns.map((t) => t.text) });
  }

  override _formatGeneration(text: string) {
    const t = this.turns[this.turn++]!;
    const message = new AIMessage({
      content: text,
      usage_metadata: { input_tokens: 10, output_tokens: t.outputTokens, total_tokens: 10 + t.outputTokens },
      response_metadata: { finish_reason: t.finishReason },
    });
    return { message, text };
  }
}
