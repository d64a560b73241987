import { Usage } from '@openai/agents';
import type { Model, ModelRequest, ModelResponse, StreamEvent } from '@openai/agents';
import type { ScriptedTurn } from './model-turns.js';
import type { ScriptedCall } from './trajectory.js';

/**
 * A scripted model through the Agents SDK's public `Model` interface (the
 * package ships no fake model): each turn answers with the next scripted
 * function call, then with a final message.
 */
export class ScriptedAgentsModel implements Model {
  private turn = 0;
  /** The input of every model call, as JSON text: what the model read. */
  readonly prompts: string[] = [];
  constructor(private readonly calls: ScriptedCall[], private readonly finalText = 'done') {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.prompts.push(JSON.stringify(request.input));
    const call = this.calls[this.turn];
    this.turn += 1;
    const usage = new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    if (!call) {
      return {
        usage,
        output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: this.finalText }] }],
      };
    }
    return {
      usage,
      output: [{ type: 'function_call', callId: `call_${this.turn}`, name: call.tool, arguments: JSON.stringify(call.args), status: 'completed' }],
    };
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('ScriptedAgentsModel answers getResponse only');
  }
}

/**
 * Scripted text turns through the `Model` interface, each response carrying
 * what the SDK's Chat Completions model reports: usage, and the provider's
 * raw response (with its finish reason) as `providerData`.
 */
export class ScriptedWritingAgentsModel implements Model {
  private turn = 0;
  /** The input of every model call, as JSON text: what the model read. */
  readonly prompts: string[] = [];
  constructor(private readonly turns: ScriptedTurn[]) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    return this.next(request);
  }

  /** The same response as a stream: the text, then `response_done` with what `getResponse` would return. */
  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    const { usage, output, providerData } = this.next(request);
    const text = (output[0] as { content: Array<{ text: string }> }).content[0]!.text;
    yield { type: 'output_text_delta', delta: text };
    yield {
      type: 'response_done',
      response: { id: `resp_${this.turn}`, usage: { requests: 1, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, totalTokens: usage.totalTokens }, output, providerData },
    } as StreamEvent;
  }

  private next(request: ModelRequest): ModelResponse {
    this.prompts.push(JSON.stringify(request.input));
    const t = this.turns[this.turn++]!;
    return {
      usage: new Usage({ requests: 1, inputTokens: 10, outputTokens: t.outputTokens, totalTokens: 10 + t.outputTokens }),
      output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: t.text }] }],
      providerData: { choices: [{ finish_reason: t.finishReason }] },
    };
  }
}
