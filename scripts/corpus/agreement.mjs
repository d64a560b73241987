#!/usr/bin/env node
// Scores a `loopguard eval --json` report against two labellers: the corpus
// labels (the miners') and the second labels of test/corpus/second-labels/
// (given blind, README there). Prints counts only, never a case id, so it can
// be run on the frozen half: how often the labellers agree, how loopguard's
// verdicts split by the second label, and recall and false-positive rate on
// the cases both labellers label alike. Given the third labels (runs the two
// disagree on, labelled a third time, blind), also recall and false-positive
// rate on the majority of the three.
//
// usage: node scripts/corpus/agreement.mjs SECOND_LABELS EVAL_JSON [THIRD_LABELS]
import { readFileSync } from 'node:fs';

const [labelsFile, evalFile, thirdFile] = process.argv.slice(2);
if (!labelsFile || !evalFile) {
  process.stderr.write('usage: node scripts/corpus/agreement.mjs SECOND_LABELS EVAL_JSON [THIRD_LABELS]\n');
  process.exit(2);
}

/** id -> label of a labels file (JSON Lines with "id" and "label"). */
function readLabels(file) {
  const labels = new Map();
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      const r = JSON.parse(line);
      if (typeof r.id !== 'string' || (r.label !== 'loop' && r.label !== 'normal')) {
        throw new Error(`${file}:${i + 1}: expected "id" (string) and "label" ("loop" or "normal")`);
      }
      labels.set(r.id, r.label);
    });
  return labels;
}

const second = readLabels(labelsFile);
const third = thirdFile ? readLabels(thirdFile) : undefined;

const cases = JSON.parse(readFileSync(evalFile, 'utf8')).cases;
const count = new Map();
const bump = (key) => count.set(key, (count.get(key) ?? 0) + 1);
const ratio = (a, b) => `${a}/${b} (${b === 0 ? '-' : (a / b).toFixed(3)})`;
let seen = 0;
let agreedLoops = 0;
let caughtAgreed = 0;
let agreedNormals = 0;
let flaggedAgreed = 0;
/** Verdicts scored on the majority label: the miners', unless both other labellers say otherwise. */
const majority = { tp: 0, fn: 0, fp: 0, tn: 0, overturned: 0, undecided: 0 };
const overturn = { tp: 'fp', fn: 'tn', fp: 'tp', tn: 'fn' };
for (const c of cases) {
  if (third) {
    const secondSays = second.get(c.id);
    const thirdSays = third.get(c.id);
    if (secondSays !== undefined && secondSays !== c.label && thirdSays === undefined) majority.undecided++;
    const overturned = secondSays !== undefined && thirdSays !== undefined && secondSays !== c.label && thirdSays !== c.label;
    if (overturned) majority.overturned++;
    majority[overturned ? overturn[c.verdict] : c.verdict]++;
  }
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
if (third) {
  lines.push(`labels the other two labellers both overturn: ${majority.overturned}; disagreements with no third label: ${majority.undecided}`);
  lines.push(`recall on the majority label: ${ratio(majority.tp, majority.tp + majority.fn)}`);
  lines.push(`false-positive rate on the majority label: ${ratio(majority.fp, majority.fp + majority.tn)}`);
}
process.stdout.write(lines.join('\n') + '\n');
