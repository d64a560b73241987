#!/usr/bin/env node
// Splits the mined real corpora by source run into a tuning half and a frozen
// half (test/corpus/REAL.md, "The split"): a case is frozen when the first hex
// digit of the SHA-256 of its `run` is 8-f. Cases cut from one run always land
// in the same half. Writes OUT/real-tune.jsonl and OUT/real-frozen.jsonl.
//
// usage: node scripts/corpus/split-real.mjs OUT FILE...
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [out, ...files] = process.argv.slice(2);
if (!out || files.length === 0) {
  process.stderr.write('usage: node scripts/corpus/split-real.mjs OUT FILE...\n');
  process.exit(2);
}

export function isFrozen(run) {
  return parseInt(createHash('sha256').update(run).digest('hex')[0], 16) >= 8;
}

const halves = { tune: [], frozen: [] };
for (const file of files) {
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      const run = JSON.parse(line).run;
      if (typeof run !== 'string' || run === '') throw new Error(`${file}:${i + 1}: field "run" must be a non-empty string`);
      halves[isFrozen(run) ? 'frozen' : 'tune'].push(line);
    });
}
mkdirSync(out, { recursive: true });
for (const [half, lines] of Object.entries(halves)) writeFileSync(join(out, `real-${half}.jsonl`), lines.join('\n') + '\n');
process.stdout.write(`tune ${halves.tune.length}, frozen ${halves.frozen.length}\n`);
