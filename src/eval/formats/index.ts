import { anthropicReader } from './anthropic.js';
import { benchmarkReader } from './benchmark.js';
import { FormatError, isObject, parseInput } from './input.js';
import { jaegerJsonReader } from './jaeger-json.js';
import { miniSweAgentReader } from './mini-swe-agent.js';
import { openAiReader } from './openai.js';
import { openHandsReader } from './openhands.js';
import { otlpJsonReader } from './otlp-json.js';
import { sweAgentReader } from './swe-agent.js';
import { tauBenchReader } from './tau-bench.js';
import type { FormatReader, ReadOptions, Run } from './types.js';

export { FormatError } from './input.js';
export type { ReadOptions, Run } from './types.js';

/**
 * Every format `eval` and `scan` read, tried in this order on the file's
 * first JSON value. The order matters only where shapes overlap: tau-bench
 * lists before bare message lists, OpenHands (a `history` or `trajectory` of
 * events, each an action or an observation) before SWE-agent (a `trajectory`
 * of steps with both, or a `history` of role messages), and OpenAI and
 * Anthropic transcripts with tool calls before mini-SWE-agent's message
 * lists (the OpenAI reader leaves mini-SWE-agent's own trajectories to it).
 */
export const FORMATS: readonly FormatReader[] = [
  benchmarkReader,
  otlpJsonReader,
  jaegerJsonReader,
  tauBenchReader,
  openHandsReader,
  sweAgentReader,
  openAiReader,
  anthropicReader,
  miniSweAgentReader,
];

export interface ReadFile {
  format: string;
  runs: Run[];
}

/**
 * Reads the runs of one file, recognising its format by content (never by
 * its name). Throws FormatError or CorpusError naming the line or JSON path
 * and the field; when no format fits, a FormatError listing what was expected.
 */
export function readRuns(file: string, text: string, options: ReadOptions = {}): ReadFile {
  const input = parseInput(file, text);
  const first = input.values[0]?.value;
  const reader = input.values.length === 0 ? benchmarkReader : FORMATS.find((f) => f.detect(first));
  if (reader === undefined) {
    const found = isObject(first) ? `an object with keys ${Object.keys(first).slice(0, 6).map((k) => `"${k}"`).join(', ')}` : Array.isArray(first) ? 'a list' : typeof first;
    throw new FormatError(
      input.form === 'lines' ? 'line 1' : undefined,
      '(document)',
      `is ${found}, not a format loopguard reads; expected one of:\n${FORMATS.map((f) => `  - ${f.looksLike}`).join('\n')}`,
    );
  }
  return { format: reader.name, runs: reader.read(input, options) };
}
