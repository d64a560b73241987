/**
 * npm run soak:collector [-- --runs N --spans-per-run N --ttl-ms N --out FILE]
 *
 * Soaks the real `loopguard collector` process: 1 M spans over 100,000 runs
 * by default (10 spans a run) to the e2e-built Go Collector as backend, the
 * collector's heap read after a full GC (through its inspector) after every
 * tenth of the runs, then the wait until the idle runs are released and the
 * heap once more. Prints progress, then the figures as one JSON line (also
 * written to `--out FILE` when given). Needs the e2e binaries (scripts/e2e/install.sh).
 * docs/benchmarks.md records a run; the e2e suite runs a short soak.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { soakCollector } from '../../test/e2e/scenarios/collector-soak.js';

function positiveInt(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer, got '${text}'`);
  return value;
}

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '100000' },
    'spans-per-run': { type: 'string', default: '10' },
    // Longer than the load takes to send 10,000 runs here, so the tracked-run cap (not only the TTL) is exercised.
    'ttl-ms': { type: 'string', default: '60000' },
    out: { type: 'string' },
  },
});

const figures = await soakCollector({
  runs: positiveInt('runs', values.runs),
  spansPerRun: positiveInt('spans-per-run', values['spans-per-run']),
  runsPerRequest: 50,
  senders: 2,
  samples: 10,
  runTtlMs: positiveInt('ttl-ms', values['ttl-ms']),
  log: (line) => console.log(line),
});
console.log(JSON.stringify(figures));
if (values.out !== undefined) writeFileSync(values.out, `${JSON.stringify(figures, null, 2)}\n`);
