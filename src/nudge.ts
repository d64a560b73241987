import type { LoopEvidence } from './breaker.js';
import type { ModelEvidence } from './detectors/model-turns.js';
import type { Level } from './types.js';

/** Everything a nudge can say; args are a short preview, never sent anywhere but to the model. */
export interface NudgeInput {
  level: Level;
  evidence: LoopEvidence;
  tool: string;
  argsPreview: string;
  step: number;
  /** The call was not executed. */
  blocked: boolean;
}

const PATTERN: Record<string, (e: LoopEvidence, call: string) => string> = {
  'no-progress': (e, call) => `You called ${call} ${e.count} times in a row and got the same result every time.`,
  'semantic-repeat': (e, call) =>
    e.period === 1
      ? `You called ${call} ${e.count} times with only cosmetic changes to the arguments, and the result did not change.`
      : `The last ${e.count} rounds of ${e.period} calls (ending with ${call}) differed only cosmetically and returned the same results.`,
  repeat: (e, call) => `You called ${call} ${e.count} times in this run and keep getting results you have already seen.`,
  'ping-pong': (e, call) => `You are alternating between two calls (the latest: ${call}) and both return what they returned before: ${e.count} rounds so far.`,
  cycle: (e, call) => `The same ${e.period} calls (the latest: ${call}) have repeated ${e.count} times with the same results: the state keeps returning to where it was.`,
  'empty-streak': (e, call) => `${e.count} calls in a row to this tool found nothing (the latest: ${call}). Guessing further values will not help.`,
  'retry-storm': (e, call) => `${call} has failed ${e.count} times in a row.`,
  'failure-repeat': (e, call) => `${call} has failed the same way ${e.count} times; sent again unchanged it will fail again.`,
  'same-error': (e, call) => `${e.count} different attempts with this tool (the latest: ${call}) all failed with the same error.`,
  'pending-resubmit': (e, call) => `${call} was sent ${e.count} times in a row and answered "pending" the same way each time.`,
  'pending-poll': (e, call) => `${call} has answered "pending" the same way ${e.count} times in a row.`,
  revisit: (e, call) => `${e.count} recent calls (the latest: ${call}) asked again for things this run had already been told, and got the same answers.`,
  budget: (e, call) => `This run has made ${e.count} tool calls (the latest: ${call}) and is close to or over its budget.`,
};

const ADVICE: Record<string, string> = {
  'no-progress': 'Repeating it will not change the outcome. Use what you already have, change the arguments meaningfully, try another tool, or tell the user what is missing.',
  'semantic-repeat': 'Rephrasing the same request will not change the outcome. Try a genuinely different approach or report what you found.',
  repeat: 'Use the results you already have instead of asking again.',
  'ping-pong': 'Break the alternation: act on what you have read, or try a different approach.',
  cycle: 'Stop undoing your own changes. Decide on one state, or report the conflict to the user.',
  'empty-streak': 'Verify the identifier with the user or with a lookup tool instead of trying more values.',
  'retry-storm': 'The service looks unavailable. Wait before retrying, or report the failure.',
  'failure-repeat': 'Read the error: change the arguments to fix what it names, or take another approach.',
  'same-error': 'The failure does not depend on the arguments. Address its cause (permissions, configuration) or report it.',
  'pending-resubmit': 'Resubmitting starts the work over and checking at once finds it unchanged: wait for the job, then check its status once.',
  'pending-poll': 'The job is still running: wait longer between checks, or tell the user it is taking longer than expected.',
  revisit: 'Nothing has changed since you asked: use the answers you have, ask something new, or act on what you found.',
  budget: 'Finish with what you have.',
};

const NEXT_REPEAT_BLOCKED = 'If the pattern continues, the next repeat will be blocked.';
const NOT_EXECUTED = 'This call was NOT executed. If the pattern continues, the run will be stopped.';
const STOPPED = 'The run has been stopped.';

function consequence(level: Level, blocked: boolean): string {
  if (level === 'break') return STOPPED;
  return blocked ? NOT_EXECUTED : NEXT_REPEAT_BLOCKED;
}

/**
 * The message a model sees: what repeated, how often, what to try instead,
 * and a small state panel it can parse.
 */
export function buildNudge(input: NudgeInput): string {
  const { evidence: e } = input;
  const call = `${input.tool}(${input.argsPreview})`;
  const pattern = (PATTERN[e.detector] ?? PATTERN['no-progress']!)(e, call);
  const advice = ADVICE[e.detector] ?? '';
  return [
    `[loopguard ${input.level}] ${pattern} ${advice} ${consequence(input.level, input.blocked)}`,
    '--- loop state ---',
    `step: ${input.step}`,
    `pattern: ${e.detector}${e.period > 1 ? ` (period ${e.period})` : ''}`,
    `repeats: ${e.count} since step ${e.since}`,
    `level: ${input.level}`,
  ].join('\n');
}

/** A bounded one-line preview of tool arguments for the nudge; values under keys matching `redactKeys` read "[REDACTED]". */
export function previewArgs(args: unknown, redactKeys?: RegExp, maxChars = 120): string {
  const redact = redactKeys && ((key: string, v: unknown) => (key !== '' && redactKeys.test(key) ? '[REDACTED]' : v));
  let text: string;
  try {
    text = typeof args === 'string' ? JSON.stringify(args) : (JSON.stringify(args, redact) ?? String(args));
  } catch {
    text = '…';
  }
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}

/** What a model-side message needs besides the evidence. */
export interface ModelNudgeInput {
  level: Level | undefined;
  evidence: ModelEvidence;
  maxOutputTokens: number;
  maxTruncations: number;
}

/** The recovery text for a response cut off by the output limit (the wording Claude Code's recovery uses, in substance). */
export const TRUNCATION_RECOVERY = 'Output limit hit: continue from where you stopped, no apology, no recap, split the rest into smaller pieces.';

/** The message a model sees about its own output: budget use, truncations, continuations that add little. */
export function buildModelNudge(input: ModelNudgeInput): string {
  const { evidence: e, level } = input;
  const tag = `[loopguard ${level ?? 'notice'}]`;
  if (level === 'break') {
    const why = {
      budget: `The output token budget is used up (${e.outputTokens} of ${input.maxOutputTokens} tokens).`,
      'diminishing-returns': `${e.score} continuations in a row added almost no new output.`,
      truncation: `${e.score} responses in a row were cut off by the output limit.`,
      'repeated-answer': `You have given nearly the same answer ${e.score} times.`,
      chanting: `${e.score} of your responses repeated one passage over and over (the latest ${e.repeats ?? 0} times).`,
    }[e.detector];
    return `${tag} ${why} ${STOPPED}`;
  }
  switch (e.detector) {
    case 'budget': {
      const percent = Math.floor((e.outputTokens / input.maxOutputTokens) * 100);
      return `${tag} Output token budget: ${e.outputTokens} of ${input.maxOutputTokens} tokens used (${percent} %). Keep working on the task; do not summarise or wrap up because of the budget.`;
    }
    case 'truncation': {
      const left = input.maxTruncations - e.score;
      const warn = left === 1 ? ' If the next response is cut off too, the run will be stopped.' : '';
      return `${tag} ${TRUNCATION_RECOVERY}${warn}`;
    }
    case 'repeated-answer':
      return `${tag} You have given nearly the same answer ${e.score} times. Saying it again will not move the task on: act on it, try another approach, or finish.`;
    case 'chanting':
      return `${tag} Your last response repeated the same passage ${e.repeats ?? 0} times. Do not write it again: say what you have found or do, once, and go on with the task.`;
    case 'diminishing-returns':
      return `${tag} Your latest continuation added little new output. Finish the task, or say what blocks it: another one like it in a row will stop the run.`;
  }
}
