import { BARS, meets } from './bars.js';
import type { BenchReport } from './run.js';

/** The readable form of a bench report: one table of the three figures against their bars, then the details behind each. */

const n = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd()).join('\n');
}

export function formatReport(report: BenchReport): string {
  const { overhead, detector, memory, fingerprint, modelOutput, environment } = report.details;
  const figures: Record<string, { shown: string; baseline: string }> = {
    overheadRatio: {
      shown: `${n(report.overheadRatio, 2)}x`,
      baseline: `plain OTel span ${n(overhead.baselineNsPerCall)} ns/call vs loopguard ${n(overhead.loopguardNsPerCall)} ns/call`,
    },
    detectorEventsPerSec: {
      shown: `${n(report.detectorEventsPerSec)}/s`,
      baseline: `${n(detector.nsPerEvent, 1)} ns/event vs empty loop ${n(detector.emptyLoopNsPerEvent, 1)} ns/event`,
    },
    bytesPerRun: {
      shown: `${n(report.bytesPerRun)} B`,
      baseline: `heap ${n(memory.heapBytesPerRun)} B + array buffers ${n(memory.arrayBufferBytesPerRun)} B, vs the same process before`,
    },
  };
  const rows = [['figure', 'value', 'bar', 'met', 'measured against (same run)']];
  for (const bar of BARS) {
    const value = report[bar.name];
    rows.push([bar.name, figures[bar.name]!.shown, `${bar.op === '<=' ? '<=' : '>='} ${n(bar.limit, bar.limit < 10 ? 1 : 0)}`, meets(bar, value) ? 'yes' : 'NO', figures[bar.name]!.baseline]);
  }
  const w = detector.workload;
  const lines = [
    `loopguard benchmarks: node ${environment.node}, ${environment.platform}, ${environment.cpus} x ${environment.cpuModel}, ` +
      `load average ${environment.loadAverage.start} -> ${environment.loadAverage.end}`,
    ...(Math.max(environment.loadAverage.start, environment.loadAverage.end) > environment.cpus
      ? ['note: other processes competed for the CPUs during this run; ratios are measured interleaved, but absolute rates are pessimistic']
      : []),
    ...(report.details.quick ? ['note: --quick run (short rounds): figures are rough'] : []),
    ...(Object.values(overhead.spansExported).some((exported) => exported !== overhead.spansExpected)
      ? ['warning: the batch span processor dropped spans on one side, so the overhead comparison is skewed']
      : []),
    '',
    table(rows),
    '',
    'overhead (one tool call, ~200 B args and result, BatchSpanProcessor + discarding exporter on both sides)',
    `  plain span ${n(overhead.baselineNsPerCall)} ns, loopguard ${n(overhead.loopguardNsPerCall)} ns, +${n(overhead.addedNsPerCall)} ns per call ` +
      `(the bar allows +${n(overhead.baselineNsPerCall * 0.5)} ns); ` +
      `median of per-round ratios ${n(overhead.medianOfRoundRatios, 2)}x; in CPU time ${n(overhead.cpuNsPerCall.baseline)} / ${n(overhead.cpuNsPerCall.loopguard)} ns (${n(overhead.cpuRatio, 2)}x); spread ${n(overhead.baselineSpread * 100)}% / ${n(overhead.loopguardSpread * 100)}%`,
    `  ${overhead.rounds} rounds (+${overhead.warmupRounds} warm-up) x ${n(overhead.callsPerRound)} calls per side, new run every ${overhead.callsPerRun} calls; ` +
      `args ${overhead.argsBytes} B, result ${overhead.resultBytes} B; spans exported ${n(overhead.spansExported.baseline)} / ${n(overhead.spansExported.floor)} / ${n(overhead.spansExported.loopguard)} of ${n(overhead.spansExpected)}; detections ${overhead.detections}`,
    `  contract floor (the plain span + SHA-256 of JSON.stringify of args and result as the two hash attributes, no canonical form, no detection): ` +
      `${n(overhead.floorNsPerCall)} ns, ${n(overhead.floorRatio, 2)}x the plain span in the same run; the bar allows 1.5x`,
    'fingerprint (per call: fingerprintArgs + resultHash of the ~200 B payloads)',
    `  ${n(fingerprint.fingerprintNsPerOp)} ns/op (args ${n(fingerprint.fingerprintArgsNs)} ns, result ${n(fingerprint.resultHashNs)} ns) vs JSON.stringify of both ${n(fingerprint.jsonStringifyNsPerOp)} ns ` +
      `(${n(fingerprint.ratioToStringify, 1)}x); JSON.stringify + SHA-256 of both ${n(fingerprint.stringifySha256NsPerOp)} ns`,
    `  steps (ns, one payload): ${Object.entries(fingerprint.steps).map(([k, v]) => `${k} ${n(v)}`).join(', ')}`,
    'model output (per response seen in process: outputTextAttributes, the sketch and the chanting check)',
    `  ${Object.entries(modelOutput.responses).map(([k, r]) => `${k}: ${n(r.us, 1)} µs (SHA-256 of it ${n(r.sha256Us, 1)} µs)`).join('; ')}`,
    'detector (LoopEngine.record, default options, precomputed hashes)',
    `  ${n(detector.nsPerEvent, 1)} ns/event including entry building; engine alone ${n(detector.engineOnlyNsPerEvent, 1)} ns (${n(detector.engineOnlyEventsPerSec)}/s); CPU time ${n(detector.cpuNsPerEvent, 1)} ns/event; spread ${n(detector.spread * 100)}%`,
    `  ${n(detector.events)} events over ${detector.concurrentRuns} concurrent runs; runs: ${Object.entries(w.runs).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `  ${n(w.eventsInLoopingRuns)} events in looping runs, ${w.loopingRunsBroken} looping runs broken; decisions: warning ${w.decisions.warning}, critical ${w.decisions.critical}, break ${w.decisions.break} (${w.decisions.notified} notified)`,
    `  top detectors: ${Object.entries(w.detectorsFired).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    'memory (one LoopEngine, child process with --expose-gc)',
    `  ${n(memory.runs)} runs x ${memory.eventsPerRun} events (window ${memory.window}); heap ${n(memory.heapBytesPerRun)} B + array buffers ${n(memory.arrayBufferBytesPerRun)} B per run; rss ${n(memory.rssBytesPerRun)} B per run (indicative)`,
  ];
  return lines.join('\n');
}
