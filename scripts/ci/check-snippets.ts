/**
 * Type-checks every ```ts snippet of README.md and docs/*.md against the
 * installed packages (`npm run check:snippets`, CI): what a reader copies
 * must compile. A snippet imports the APIs it shows; names it only uses
 * (`model`, `agent`, `input`…) stand for the reader's own values and are
 * declared `any`. Snippets importing `ai` are checked against ai@7 and
 * again against ai@6 (installed as `ai-v6`), the two majors the docs name.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const out = join(root, '.snippets');

interface Snippet {
  file: string;
  doc: string;
  line: number;
  code: string;
}

function snippets(): Snippet[] {
  const docs = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const found: Snippet[] = [];
  for (const doc of docs) {
    const text = readFileSync(join(root, doc), 'utf8');
    for (const m of text.matchAll(/^```ts\n([\s\S]*?)^```/gm)) {
      const line = text.slice(0, m.index).split('\n').length + 1;
      const name = `${basename(doc, '.md').toLowerCase()}-${line}`;
      found.push({ file: `${name}.ts`, doc, line, code: m[1]! });
      if (/from 'ai(\/[^']*)?'/.test(m[1]!)) {
        found.push({ file: `${name}-ai6.ts`, doc: `${doc} (ai@6)`, line, code: m[1]!.replace(/from 'ai(\/[^']*)?'/g, "from 'ai-v6$1'") });
      }
    }
  }
  return found;
}

/** Runs tsc over the snippet directory; returns its diagnostics by file. */
function typecheck(): Map<string, Array<{ line: number; code: string; message: string }>> {
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(out, 'tsconfig.json')], { encoding: 'utf8' });
  const byFile = new Map<string, Array<{ line: number; code: string; message: string }>>();
  for (const m of tsc.stdout.matchAll(/^(?:\.snippets\/)?([^(\s]+\.ts)\((\d+),\d+\): error (TS\d+): (.*)$/gm)) {
    const file = basename(m[1]!);
    if (!byFile.has(file)) byFile.set(file, []);
    byFile.get(file)!.push({ line: Number(m[2]), code: m[3]!, message: m[4]! });
  }
  if (tsc.status !== 0 && byFile.size === 0) throw new Error(`tsc failed: ${tsc.stdout}${tsc.stderr}`);
  return byFile;
}

// Unknown names, and unknown names used as shorthand properties (`{ model, prompt }`).
const PLACEHOLDER = new Set(['TS2304', 'TS2552', 'TS18004']);
const all = snippets();
rmSync(out, { recursive: true, force: true });
mkdirSync(out);
writeFileSync(
  join(out, 'tsconfig.json'),
  JSON.stringify({
    extends: '../tsconfig.json',
    compilerOptions: {
      noEmit: true,
      noUnusedLocals: false,
      noUnusedParameters: false,
      rootDir: '..',
      paths: { loopguard: ['../instrumentation/index.ts'], 'loopguard/processor': ['../src/index.ts'], 'loopguard/collector': ['../src/collector/index.ts'] },
    },
    include: ['./*.ts'],
  }),
);
const write = (s: Snippet, placeholders: string[]) =>
  writeFileSync(join(out, s.file), `${s.code}\n${placeholders.map((n) => `declare const ${n}: any;`).join('\n')}\nexport {};\n`);
for (const s of all) write(s, []);
// First pass: the reader's own values show up as unknown names.
const first = typecheck();
for (const s of all) {
  const names = new Set((first.get(s.file) ?? []).filter((d) => PLACEHOLDER.has(d.code)).map((d) => /'([^']+)'/.exec(d.message)?.[1]).filter((n): n is string => !!n));
  write(s, [...names]);
}
const second = typecheck();
let failures = 0;
for (const s of all) {
  for (const d of second.get(s.file) ?? []) {
    failures++;
    console.log(`${s.doc}: snippet at line ${s.line}, its line ${d.line}: ${d.code} ${d.message}`);
  }
}
console.log(failures === 0 ? `${all.length} snippets type-check` : `${failures} errors in documentation snippets`);
if (failures === 0) rmSync(out, { recursive: true, force: true });
process.exitCode = failures === 0 ? 0 : 1;
