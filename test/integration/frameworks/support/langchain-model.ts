import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import type { ScriptedCall } from './trajectory.js';

/**
 * LangChain's own FakeListChatModel, taught to answer with tool calls: each
 * scripted response is a JSON tool call (or plain text to finish). Upstream
 * it only ever answers with text, and its `bindTools` returns a plain copy,
 * so both are overridden; everything else is the real fake.
 */
export class ScriptedToolCallingModel extends FakeListChatModel {
  /** The messages of every model call, as JSON text: what the model read. */
  readonly prompts: string[] = [];

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

  override async _generate(messages: BaseMessage[], options: this['ParsedCallOptions'], runManager?: Parameters<FakeListChatModel['_generate']>[2]) {
    this.prompts.push(JSON.stringify(messages.map((m) => m.content)));
    return super._generate(messages, options, runManager);
  }

  override bindTools(): this {
    return this;
  }
}
