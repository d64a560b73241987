import { hash } from 'node:crypto';
import { canonicalizeArgs, canonicalizeMasked, DEFAULT_MAX_BYTES } from '../src/fingerprint/canonical.js';
import { classifyResult, fingerprintArgs, hashText, resultHash } from '../src/fingerprint/index.js';
import type { MaskSettings } from '../src/fingerprint/volatile.js';
import { ARGS, PAYLOAD_COUNT, RESULTS } from './payloads.js';
import { median, nowNs, round, sink } from './stats.js';

/**
 * The per-call hashing cost, which dominates loopguard's overhead:
 * `fingerprintArgs` + `resultHash` of the ~200-byte payloads, against
 * `JSON.stringify` of the same two objects (the floor any serialisation
 * pays) and `JSON.stringify` + one-shot SHA-256 of both (hashing without
 * canonicalisation, normalisation or masking). The steps inside are timed
 * one by one, as the two calls run them, so the report shows where the time
 * goes: the one-pass canonicalisation of the arguments (raw and normalised
 * text), SHA-256 of a canonical text, the masked canonicalisation of the
 * result, and classifyResult (which the processor runs on every result).
 */

export interface FingerprintBenchOptions {
  rounds: number;
  opsPerRound: number;
}

export const DEFAULT_FINGERPRINT_OPTIONS: FingerprintBenchOptions = { rounds: 11, opsPerRound: 20_000 };

export interface FingerprintResult {
  fingerprintNsPerOp: number;
  fingerprintArgsNs: number;
  resultHashNs: number;
  jsonStringifyNsPerOp: number;
  stringifySha256NsPerOp: number;
  ratioToStringify: number;
  /** ns per call of each step, on one payload (args or result). */
  steps: { canonicalizeArgs: number; sha256Text: number; canonicalizeMaskedResult: number; classifyResult: number };
  rounds: number;
  opsPerRound: number;
}

type Op = (i: number) => void;

const CANONICAL_ARGS = ARGS.map((a) => canonicalizeArgs(a, DEFAULT_MAX_BYTES, null).text);
/** What resultHash masks with no options (src/fingerprint/index.ts DEFAULT_MASK). */
const DEFAULT_MASK: MaskSettings = Object.freeze({ defaults: true, extra: null });

const ops = {
  both: (i) => {
    const k = i % PAYLOAD_COUNT;
    sink.value += fingerprintArgs(ARGS[k]).argsHash.length + resultHash(RESULTS[k]).length;
  },
  args: (i) => {
    sink.value += fingerprintArgs(ARGS[i % PAYLOAD_COUNT]).argsHash.length;
  },
  result: (i) => {
    sink.value += resultHash(RESULTS[i % PAYLOAD_COUNT]).length;
  },
  stringify: (i) => {
    const k = i % PAYLOAD_COUNT;
    sink.value += JSON.stringify(ARGS[k]).length + JSON.stringify(RESULTS[k]).length;
  },
  stringifySha: (i) => {
    const k = i % PAYLOAD_COUNT;
    sink.value += hash('sha256', JSON.stringify(ARGS[k]), 'hex').length + hash('sha256', JSON.stringify(RESULTS[k]), 'hex').length;
  },
  canonicalizeArgs: (i) => {
    sink.value += canonicalizeArgs(ARGS[i % PAYLOAD_COUNT], DEFAULT_MAX_BYTES, null).text.length;
  },
  sha256Text: (i) => {
    sink.value += hashText(CANONICAL_ARGS[i % PAYLOAD_COUNT]!).length;
  },
  canonicalizeMaskedResult: (i) => {
    sink.value += canonicalizeMasked(RESULTS[i % PAYLOAD_COUNT], DEFAULT_MAX_BYTES, DEFAULT_MASK).text.length;
  },
  classifyResult: (i) => {
    sink.value += classifyResult(RESULTS[i % PAYLOAD_COUNT]).length;
  },
} satisfies Record<string, Op>;

function timeOp(op: Op, n: number): number {
  const t0 = nowNs();
  for (let i = 0; i < n; i++) op(i);
  return (nowNs() - t0) / n;
}

export function measureFingerprint(options: FingerprintBenchOptions = DEFAULT_FINGERPRINT_OPTIONS): FingerprintResult {
  const names = Object.keys(ops) as Array<keyof typeof ops>;
  const samples = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<keyof typeof ops, number[]>;
  // One warm-up round, then interleaved rounds.
  for (const n of names) timeOp(ops[n], options.opsPerRound);
  for (let r = 0; r < options.rounds; r++) {
    for (const n of names) samples[n].push(timeOp(ops[n], options.opsPerRound));
  }
  const m = (n: keyof typeof ops) => round(median(samples[n]));
  const both = median(samples.both);
  const stringify = median(samples.stringify);
  return {
    fingerprintNsPerOp: round(both),
    fingerprintArgsNs: m('args'),
    resultHashNs: m('result'),
    jsonStringifyNsPerOp: round(stringify),
    stringifySha256NsPerOp: m('stringifySha'),
    ratioToStringify: round(both / stringify, 2),
    steps: {
      canonicalizeArgs: m('canonicalizeArgs'),
      sha256Text: m('sha256Text'),
      canonicalizeMaskedResult: m('canonicalizeMaskedResult'),
      classifyResult: m('classifyResult'),
    },
    rounds: options.rounds,
    opsPerRound: options.opsPerRound,
  };
}
