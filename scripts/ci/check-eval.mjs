// Gates CI on the benchmark: reads the output of
// `loopguard eval FILE --json` and fails unless there are no false positives,
// false negatives, false terminations, late detections or missed breaks.
//
// Usage: node scripts/ci/check-eval.mjs EVAL.json
import { readFileSync } from 'node:fs';

const GATED = ['fp', 'fn', 'falseTerminations', 'late', 'missedBreaks'];

const file = process.argv[2];
if (!file) {
  console.error('check-eval: usage: node scripts/ci/check-eval.mjs EVAL.json');
  process.exit(2);
}
let result;
try {
  result = JSON.parse(readFileSync(file, 'utf8'));
} catch (err) {
  console.error(`check-eval: ${file} does not hold the one JSON object 'loopguard eval --json' prints: ${err.message}`);
  process.exit(1);
}
const summary = result?.summary;
if (typeof summary !== 'object' || summary === null) {
  console.error(`check-eval: ${file} has no "summary" object`);
  process.exit(1);
}
const missing = GATED.filter((k) => typeof summary[k] !== 'number');
if (missing.length > 0) {
  console.error(`check-eval: summary lacks numeric ${missing.join(', ')}`);
  process.exit(1);
}

console.log(`  cases ${summary.cases}: tp ${summary.tp}, tn ${summary.tn}, fp ${summary.fp}, fn ${summary.fn}`);
console.log(
  `  recall ${summary.recall}, false-positive rate ${summary.falsePositiveRate}, ` +
    `false terminations ${summary.falseTerminations}, late ${summary.late}, missed breaks ${summary.missedBreaks}, ` +
    `mean steps to detect ${summary.meanStepsToDetect}`,
);
const bad = GATED.filter((k) => summary[k] !== 0);
if (bad.length > 0) {
  console.error(`check-eval: must be 0: ${bad.map((k) => `${k}=${summary[k]}`).join(', ')}`);
  for (const c of result.cases ?? []) {
    if (c.verdict === 'fp' || c.verdict === 'fn' || c.late || c.missedBreak) {
      console.error(`  ${c.id} (${c.label}): verdict ${c.verdict}${c.late ? ', late' : ''}${c.missedBreak ? ', missed break' : ''}`);
    }
  }
  process.exit(1);
}
console.log('  benchmark gate passed: no fp, fn, false terminations, late detections or missed breaks');
