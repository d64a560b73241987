import { parseCorpus } from '../corpus.js';
import { isObject } from './input.js';
import type { FormatReader } from './types.js';

/** loopguard's benchmark corpus (`../shared/benchmark/README.md`): labelled trajectories, one JSON object a line. */
export const benchmarkReader: FormatReader = {
  name: 'benchmark',
  looksLike: 'benchmark JSON Lines (objects with "id", "label" and "steps")',
  detect: (first) => isObject(first) && 'steps' in first,
  // Parsed by the corpus parser itself, so its messages and rules stay exactly what they were.
  read: (input) => parseCorpus(input.text),
};
