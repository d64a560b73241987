// Adds up vitest JSON reports (vitest run --reporter=json --outputFile.json=FILE)
// into one closing line, "Tests: N passed, N failed[, N skipped]", which CI
// reads to tell a run that tested something from one that ran no test.
//
// Usage: node scripts/ci/vitest-totals.mjs LABEL=FILE...
// Exit 1 when a report counts failures or when no test ran at all.
import { existsSync, readFileSync } from 'node:fs';

const rows = [];
const totals = { passed: 0, failed: 0, skipped: 0 };
let broken = false;

for (const arg of process.argv.slice(2)) {
  const eq = arg.indexOf('=');
  if (eq <= 0) {
    console.error(`vitest-totals: expected LABEL=FILE, got "${arg}"`);
    process.exit(2);
  }
  const label = arg.slice(0, eq);
  const file = arg.slice(eq + 1);
  if (!existsSync(file)) {
    // A suite that passed without writing its report (its script no longer
    // forwards vitest arguments, say) is not counted, but is not hidden either.
    rows.push({ label, note: 'no report (not counted)' });
    continue;
  }
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    console.error(`vitest-totals: ${file} is not a vitest JSON report: ${err.message}`);
    broken = true;
    continue;
  }
  const passed = Number(report.numPassedTests ?? 0);
  const failed = Number(report.numFailedTests ?? 0);
  const skipped = Number(report.numPendingTests ?? 0) + Number(report.numTodoTests ?? 0);
  totals.passed += passed;
  totals.failed += failed;
  totals.skipped += skipped;
  rows.push({ label, note: `${passed} passed, ${failed} failed, ${skipped} skipped` });
}

const width = Math.max(0, ...rows.map((r) => r.label.length));
for (const r of rows) console.log(`  ${r.label.padEnd(width)}  ${r.note}`);
const ran = totals.passed + totals.failed;
if (ran === 0) console.error('vitest-totals: no test ran');
console.log(`Tests: ${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`);
process.exit(broken || totals.failed > 0 || ran === 0 ? 1 : 0);
