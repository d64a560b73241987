/**
 * Detectors of the model side: what a run's model responses add up to
 * (output tokens, truncations, continuations that add little). Like the tool
 * detectors they only report evidence; the policy (`judgeModel`) decides.
 */

import { comparableByNearness, sketchSimilarity } from '../fingerprint/sketch.js';

export type ModelDetectorName = 'budget' | 'diminishing-returns' | 'truncation' | 'repeated-answer' | 'chanting';

/** One model response, as an LLM span reports it. */
export interface ModelTurn {
  outputTokens: number;
  /** The first `gen_ai.response.finish_reasons` entry, lower-cased; undefined when not reported. */
  finishReason: string | undefined;
  /** Similarity sketch of the response text (`loopguard.output.sketch`), when the text was seen. */
  sketch?: string | undefined;
  /** How many times the passage the response chants occurs in it (`loopguard.output.repetition`); 0 or undefined: it does not chant. */
  chant?: number | undefined;
}

/**
 * Estimated similarity at or above which two answers are the same answer
 * restated: stricter than the bar for tool results, since an answer is the
 * model's own words and two answers on one subject share much of them.
 */
export const REPEATED_ANSWER_SIMILARITY = 0.7;
/** Text answers kept per run to compare the next one with. */
const ANSWERS_KEPT = 8;

/** Finish reasons meaning the response was cut off by the output-token limit (OpenAI, Anthropic, Gemini, Bedrock spellings). */
const TRUNCATED = new Set(['length', 'max_tokens', 'max_output_tokens', 'model_length']);
/** Finish reasons meaning the model asked for tools: work, not more writing. */
const TOOL_CALLS = new Set(['tool_calls', 'tool_use', 'function_call', 'tool-calls', 'tool_call']);

export function isTruncation(finishReason: string | undefined): boolean {
  return finishReason !== undefined && TRUNCATED.has(finishReason);
}

/**
 * A run's model turns as running counts (bounded whatever the run's length).
 * A continuation is a text response (not a tool call, not cut off) that
 * follows another with no tool call in between: the model writing on instead
 * of acting. Its new output is everything the model wrote since the previous
 * text response. A tool call starts the count over: an agent that acts
 * between short answers (a support chat) is working, not petering out.
 */
export class ModelHistory {
  outputTokens = 0;
  /** Responses in a row cut off by the output limit (0 once one ends normally). */
  truncations = 0;
  /** Text responses since the last tool call (continuations are all but the first). */
  chain = 0;
  /** Continuations in a row, ending with the latest response, whose new output was under the threshold. */
  lowContinuations = 0;
  /** Whether the latest response was a text response (the only kind diminishing returns judges). */
  lastWasText = false;
  /** How many of the kept text answers, the latest included, are the latest restated (0 when it is not a long text answer). */
  repeats = 0;
  /** Responses of the run that chanted, and how many times the latest one repeated its passage (0: it did not chant). */
  chantingResponses = 0;
  chant = 0;
  private sinceText = 0;
  private readonly answers: string[] = [];

  push(turn: ModelTurn, minContinuationTokens: number): void {
    this.outputTokens += turn.outputTokens;
    this.sinceText += turn.outputTokens;
    const truncated = isTruncation(turn.finishReason);
    this.truncations = truncated ? this.truncations + 1 : 0;
    this.lastWasText = false;
    this.repeats = 0;
    // Chanting is judged on any response: a chant often runs on until the output limit cuts it off.
    this.chant = turn.chant ?? 0;
    if (this.chant > 0) this.chantingResponses++;
    if (truncated) return;
    if (turn.finishReason !== undefined && TOOL_CALLS.has(turn.finishReason)) {
      this.acted();
      return;
    }
    this.lastWasText = true;
    if (turn.sketch !== undefined) this.compareAnswer(turn.sketch);
    this.chain++;
    if (this.chain > 1) this.lowContinuations = this.sinceText < minContinuationTokens ? this.lowContinuations + 1 : 0;
    this.sinceText = 0;
  }

  /** Short answers ("Done.", "Yes") are alike by nature: only answers long enough to compare by similarity count. */
  private compareAnswer(sketch: string): void {
    if (!comparableByNearness(sketch)) return;
    this.repeats = 1;
    for (const earlier of this.answers) if (sketchSimilarity(earlier, sketch) >= REPEATED_ANSWER_SIMILARITY) this.repeats++;
    this.answers.push(sketch);
    if (this.answers.length > ANSWERS_KEPT) this.answers.shift();
  }

  /** The agent called a tool (told by the finish reason or by the tool call itself). */
  acted(): void {
    this.chain = 0;
    this.lowContinuations = 0;
    this.sinceText = 0;
    this.lastWasText = false;
  }

  get continuations(): number {
    return Math.max(0, this.chain - 1);
  }
}

/** The options the model detectors read. */
export interface ModelDetectorContext {
  /** Output-token budget of the run; 0 is off (and so is diminishing returns, which only makes sense under a budget). */
  readonly maxOutputTokens: number;
  /** Share of the budget at which the model is told how much is used. */
  readonly outputTokenNoticeShare: number;
  readonly minContinuations: number;
  /** Truncations in a row that stop the run; 0 is off. */
  readonly maxTruncations: number;
  /** The smallest count of one answer restated that the policy acts on (0: repeated answers are off). */
  readonly repeatedAnswerFloor: number;
  /** Whether chanting responses are judged (`maxChantingResponses` is not 0). */
  readonly chanting: boolean;
}

export interface ModelEvidence {
  detector: ModelDetectorName;
  /** Budget share used, low continuations in a row, truncations in a row, times one answer was given, or chanting responses of the run. */
  score: number;
  /** Chanting only: how many times the latest response repeated its passage. */
  repeats?: number;
  /** Output tokens of the run so far, and the budget they count against (0: none). */
  outputTokens: number;
  budget: number;
}

export type ModelDetector = (h: ModelHistory, ctx: ModelDetectorContext, out: ModelEvidence[]) => void;

export const outputBudget: ModelDetector = (h, ctx, out) => {
  if (ctx.maxOutputTokens === 0) return;
  const share = h.outputTokens / ctx.maxOutputTokens;
  if (share >= ctx.outputTokenNoticeShare) out.push({ detector: 'budget', score: share, outputTokens: h.outputTokens, budget: ctx.maxOutputTokens });
};

export const diminishingReturns: ModelDetector = (h, ctx, out) => {
  if (ctx.maxOutputTokens === 0 || !h.lastWasText || h.continuations < ctx.minContinuations || h.lowContinuations === 0) return;
  out.push({ detector: 'diminishing-returns', score: h.lowContinuations, outputTokens: h.outputTokens, budget: ctx.maxOutputTokens });
};

export const truncation: ModelDetector = (h, ctx, out) => {
  if (ctx.maxTruncations === 0 || h.truncations === 0) return;
  out.push({ detector: 'truncation', score: h.truncations, outputTokens: h.outputTokens, budget: ctx.maxOutputTokens });
};

export const repeatedAnswer: ModelDetector = (h, ctx, out) => {
  if (ctx.repeatedAnswerFloor === 0 || h.repeats < ctx.repeatedAnswerFloor) return;
  out.push({ detector: 'repeated-answer', score: h.repeats, outputTokens: h.outputTokens, budget: ctx.maxOutputTokens });
};

/** A response that chants: it repeated one passage over and over within itself (fingerprint/chanting.ts). */
export const chanting: ModelDetector = (h, ctx, out) => {
  if (!ctx.chanting || h.chant === 0) return;
  out.push({ detector: 'chanting', score: h.chantingResponses, repeats: h.chant, outputTokens: h.outputTokens, budget: ctx.maxOutputTokens });
};

export const MODEL_DETECTORS: readonly ModelDetector[] = [outputBudget, truncation, diminishingReturns, repeatedAnswer, chanting];
