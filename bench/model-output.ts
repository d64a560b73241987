import { hash } from 'node:crypto';
import { outputTextAttributes } from '../src/model-span.js';
import { median, nowNs, round, sink } from './stats.js';

/**
 * The cost of what loopguard computes from a model response it sees (its
 * similarity sketch and the chanting check, `outputTextAttributes`), per
 * response, for a short answer, a long report and a response that chants
 * until the output limit; against SHA-256 of the same text (the floor of
 * reading it once).
 */

export interface ModelOutputBenchOptions {
  rounds: number;
  opsPerRound: number;
}

export const DEFAULT_MODEL_OUTPUT_OPTIONS: ModelOutputBenchOptions = { rounds: 7, opsPerRound: 50 };

export interface ModelOutputResult {
  /** µs per response, and SHA-256 of the same text in µs, by response. */
  responses: Record<string, { chars: number; us: number; sha256Us: number }>;
  rounds: number;
  opsPerRound: number;
}

const SENTENCES = [
  'The outage began when the nightly migration locked the orders table',
  'checkout requests queued behind the lock and the pool filled within minutes',
  'the on-call engineer paged the database owner after the error rate climbed',
  'killing the migration released the lock and latency recovered',
  'alert windows move to one minute and migrations run online from now on',
];
/** Distinct prose: sentences numbered so no chunk repeats. */
function prose(chars: number): string {
  let text = '';
  for (let i = 0; text.length < chars; i++) text += `${SENTENCES[i % SENTENCES.length]} (${i}). `;
  return text.slice(0, chars);
}

const RESPONSES: Record<string, string> = {
  'answer 2 KB': prose(2_000),
  'report 32 KB': prose(32_000),
  'chant to the limit 100 KB': `${prose(2_000)} ${'I will now check the configuration again. '.repeat(2_330)}`,
};

function timeOp(op: () => void, n: number): number {
  const t0 = nowNs();
  for (let i = 0; i < n; i++) op();
  return (nowNs() - t0) / n / 1_000;
}

export function measureModelOutput(options: ModelOutputBenchOptions = DEFAULT_MODEL_OUTPUT_OPTIONS): ModelOutputResult {
  const responses: ModelOutputResult['responses'] = {};
  for (const [name, text] of Object.entries(RESPONSES)) {
    const compute = () => void (sink.value += Object.keys(outputTextAttributes(text)).length);
    const sha = () => void (sink.value += hash('sha256', text, 'hex').length);
    compute();
    sha();
    const us: number[] = [];
    const shaUs: number[] = [];
    for (let r = 0; r < options.rounds; r++) {
      us.push(timeOp(compute, options.opsPerRound));
      shaUs.push(timeOp(sha, options.opsPerRound));
    }
    responses[name] = { chars: text.length, us: round(median(us), 1), sha256Us: round(median(shaUs), 1) };
  }
  return { responses, rounds: options.rounds, opsPerRound: options.opsPerRound };
}
