import { hash } from 'node:crypto';
import { fingerprintArgs, resultHash } from '../src/fingerprint/index.js';
import { ARGS, PAYLOAD_COUNT, RESULTS } from './payloads.js';
import { median, nowNs, round, sink } from './stats.js';

/**
 * The per-call hashing cost, which dominates loopguard's overhead:
 * `fingerprintArgs` + `resultHash` of the ~200-byte payloads, against
 * `JSON.stringify` of the same two objects (the floor any serialisation
 * pays) and against `JSON.stringify` + one-shot SHA-256 of both (what hashing
 * would cost without canonicalisation, normalisation and masking).
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
  rounds: number;
  opsPerRound: number;
}

type Op = (i: number) => void;

const ops: Record<'both' | 'args' | 'result' | 'stringify' | 'stringifySha', Op> = {
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
};

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
  const both = median(samples.both);
  const stringify = median(samples.stringify);
  return {
    fingerprintNsPerOp: round(both),
    fingerprintArgsNs: round(median(samples.args)),
    resultHashNs: round(median(samples.result)),
    jsonStringifyNsPerOp: round(stringify),
    stringifySha256NsPerOp: round(median(samples.stringifySha)),
    ratioToStringify: round(both / stringify, 2),
    rounds: options.rounds,
    opsPerRound: options.opsPerRound,
  };
}
