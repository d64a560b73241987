import { Usage } from '@openai/agents';
import type { Model, ModelRequest, ModelResponse } from '@openai/agents';
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
