#!/usr/bin/env node
// Scores a `loopguard eval --json` report against two labellers: the corpus
// labels (the miners') and the second labels of test/corpus/second-labels/
// (given blind, README there). Prints counts only, never a case id, so it can
// be run on the frozen half: how often the labellers agree, how loopguard's
// verdicts split by the second label, and recall and false-positive rate on
// the cases both labellers label alike.
//
// usage: node scripts/corpus/agreement.mjs SECOND_LABELS EVAL_JSON
import { readFileSync } from 'node:fs';

const [labelsFile, evalFile] = process.argv.slice(2);
if (!labelsFile || !evalFile) {
  process.stderr.write('usage: node scripts/corpus/agreement.mjs SECOND_LABELS EVAL_JSON\n');
  process.exit(2);
}

const second = new Map();
readFileSync(labelsFile, 'utf8')
  .split('\n')
  .forEach((line, i) => {
    if (line.trim() === '') return;
    const r = JSON.parse(line);
    if (typeof r.id !== 'string' || (r.label !== 'loop' && r.label !== 'normal')) {
      throw new Error(`${labelsFile}:${i + 1}: expected "id" (string) and "label" ("loop" or "normal")`);
    }
    second.set(r.id, r.label);
  });

const cases = JSON.parse(readFileSync(evalFile, 'utf8')).cases;
const count = new Map();
const bump = (key) => count.set(key, (count.get(key) ?? 0) + 1);
const ratio = (a, b) => `${a}/${b} (${b === 0 ? '-' : (a / b).toFixed(3)})`;
let seen = 0;
let agreedLoops = 0;
let caughtAgreed = 0;
let agreedNormals = 0;
let flaggedAgreed = 0;
for (const c of cases) {
  const label = second.get(c.id);
  if (label === undefined) continue;
  seen++;
  bump(`first ${c.label}, second ${label}`);
  bump(`loopguard ${c.verdict}, second ${label}`);
  if (c.label !== label) continue;
  if (label === 'loop') {
    agreedLoops++;
    if (c.verdict === 'tp') caughtAgreed++;
  } else {
    agreedNormals++;
    if (c.verdict === 'fp') flaggedAgreed++;
  }
}

const lines = [`cases with a second label: ${seen} of ${cases.length}`];
for (const key of [...count.keys()].sort()) lines.push(`${key}: ${count.get(key)}`);
lines.push(`recall on loops both labellers call loops: ${ratio(caughtAgreed, agreedLoops)}`);
lines.push(`false-positive rate on normals both call normal: ${ratio(flaggedAgreed, agreedNormals)}`);
process.stdout.write(lines.join('\n') + '\n');
