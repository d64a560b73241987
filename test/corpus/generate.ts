/**
 * Writes test/corpus/trajectories.jsonl: loopguard's own labelled corpus in
 * the benchmark format (../shared/benchmark/README.md). The trajectories are
 * built here rather than typed as JSONL because many are long (a log read 24
 * times, a 10-page sweep restarted three times) and their payloads must vary
 * the way real tool output varies. Run: `npx tsx test/corpus/generate.ts`.
 *
 * Labelling conventions (README.md next to this file): `onset` is the first
 * call of the repeated pattern; `detectBy` is the end of the second repeat
 * for period 1 and of two full periods for period p (as the shared corpus
 * does), longer for families whose legitimate cousins repeat too (retries,
 * empty lookups, failures across variants).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

type Status = 'ok' | 'empty' | 'error' | 'pending';

interface Step {
  tool: string;
  args: unknown;
  result?: unknown;
  status: Status;
  error?: string;
  t?: number;
  durationMs?: number;
}

interface Case {
  id: string;
  label: 'normal' | 'loop';
  title: string;
  source: string;
  steps: Step[];
  expect: { onset?: number; detectBy?: number; breakBy?: number };
  note: string;
}

const SOURCE = 'loopguard test corpus';

function ok(tool: string, args: unknown, result: unknown, extra: Partial<Step> = {}): Step {
  return { tool, args, result, status: 'ok', ...extra };
}
function empty(tool: string, args: unknown, result: unknown, extra: Partial<Step> = {}): Step {
  return { tool, args, result, status: 'empty', ...extra };
}
function pending(tool: string, args: unknown, result: unknown, extra: Partial<Step> = {}): Step {
  return { tool, args, result, status: 'pending', ...extra };
}
function fail(tool: string, args: unknown, error: string, extra: Partial<Step> = {}): Step {
  return { tool, args, status: 'error', error, ...extra };
}

/** Deterministic pseudo-random source, so regenerating the corpus gives the same file. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const rand = rng(20261130);
function hex(n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += Math.floor(rand() * 16).toString(16);
  return out;
}
function iso(baseMs: number, offsetMs: number): string {
  return new Date(baseMs + offsetMs).toISOString();
}
const BASE = Date.UTC(2026, 10, 30, 9, 12, 0);
function secs(lo: number, hi: number): string {
  return (lo + rand() * (hi - lo)).toFixed(2);
}

/** Adds `t` (ms since start) to steps, `gapMs` apart unless a step has its own. */
function timed(steps: Step[], gapMs: number): Step[] {
  let t = 0;
  return steps.map((s) => {
    const withT = { ...s, t: s.t ?? t };
    t = withT.t + gapMs;
    return withT;
  });
}

const cases: Case[] = [];
function add(c: Omit<Case, 'source'>): void {
  cases.push({ ...c, source: SOURCE });
}

// ---------------------------------------------------------------- normal --

{
  const test = (summary: string, failures: string[], exit: number): unknown => ({
    exit_code: exit,
    stdout:
      (failures.length ? failures.map((f) => `FAILED tests/test_totals.py::${f}`).join('\n') + '\n' : '') +
      `${summary} in ${secs(0.35, 0.5)}s`,
  });
  const cmd = { cmd: 'pytest tests/test_totals.py -q' };
  add({
    id: 'n-edit-test-converges',
    label: 'normal',
    title: 'coding agent: edit/test cycles on one module, failing tests 5 → 3 → 2 → 2 → 1 → 0',
    steps: [
      ok('read_file', { path: 'src/invoice/totals.py' }, { content: 'from decimal import Decimal\n\ndef compute_total(lines, tax_rate, discount=None):\n    subtotal = sum(l.price for l in lines)\n    ...' }),
      ok('run_tests', cmd, test('5 failed, 3 passed', ['test_qty_multiplies', 'test_discount_applied', 'test_rounding_half_even', 'test_zero_tax', 'test_currency_kept'], 1)),
      ok('edit_file', { path: 'src/invoice/totals.py', old: 'sum(l.price for l in lines)', new: 'sum(l.price * l.qty for l in lines)' }, { ok: true, replacements: 1 }),
      ok('run_tests', cmd, test('3 failed, 5 passed', ['test_discount_applied', 'test_rounding_half_even', 'test_zero_tax'], 1)),
      ok('read_file', { path: 'tests/test_totals.py' }, { content: 'def test_discount_applied():\n    lines = [Line(Decimal("10.00"), 2)]\n    assert compute_total(lines, Decimal("0.2"), discount=Decimal("0.1")) == Decimal("21.60")\n...' }),
      ok('edit_file', { path: 'src/invoice/totals.py', old: '    total = subtotal * (1 + tax_rate)', new: '    if discount:\n        subtotal -= subtotal * discount\n    total = subtotal * (1 + tax_rate)' }, { ok: true, replacements: 1 }),
      ok('run_tests', cmd, test('2 failed, 6 passed', ['test_rounding_half_even', 'test_zero_tax'], 1)),
      ok('edit_file', { path: 'src/invoice/totals.py', old: '    return round(total, 2)', new: '    return total.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)' }, { ok: true, replacements: 1 }),
      ok('run_tests', cmd, test('2 failed, 6 passed', ['test_zero_tax', 'test_currency_kept'], 1)),
      ok('edit_file', { path: 'src/invoice/totals.py', old: 'from decimal import Decimal', new: 'from decimal import ROUND_HALF_EVEN, Decimal' }, { ok: true, replacements: 1 }),
      ok('run_tests', cmd, test('1 failed, 7 passed', ['test_zero_tax'], 1)),
      ok('edit_file', { path: 'src/invoice/totals.py', old: '    if not tax_rate:\n        return None', new: '    if not tax_rate:\n        tax_rate = Decimal(0)' }, { ok: true, replacements: 1 }),
      ok('run_tests', cmd, test('8 passed', [], 0)),
      ok('run_tests', { cmd: 'pytest -q' }, { exit_code: 0, stdout: `142 passed, 3 skipped in ${secs(5, 7)}s` }),
      ok('git_diff', { stat: true }, { stdout: ' src/invoice/totals.py | 11 +++++++----\n 1 file changed, 7 insertions(+), 4 deletions(-)' }),
    ],
    expect: {},
    note: 'the same test command runs seven times, but every run reports a different set of failures (one repeat of the count with different names): results that keep changing are progress (DESIGN §7)',
  });
}

{
  // Alphabetical route modules; the deprecated helper lives in three of them.
  const routes = ['admin', 'auth', 'billing', 'carts', 'checkout', 'health', 'invoices', 'orders', 'payments', 'products', 'reviews', 'search', 'shipping', 'users'];
  const hits: Record<string, Array<{ line: number; text: string }>> = {
    billing: [{ line: 88, text: 'amount = legacy_price_round(raw_amount, currency)' }],
    invoices: [
      { line: 41, text: 'from app.pricing import legacy_price_round' },
      { line: 132, text: 'line_total = legacy_price_round(line.qty * line.unit_price, inv.currency)' },
    ],
    orders: [{ line: 210, text: 'order.total = legacy_price_round(order.total, order.currency)' }],
  };
  const steps: Step[] = [ok('list_dir', { path: 'app/routes' }, { entries: routes.map((r) => `${r}.py`) })];
  for (const r of routes) {
    const path = `app/routes/${r}.py`;
    const h = hits[r];
    if (h) steps.push(ok('grep', { pattern: 'legacy_price_round', path }, { matches: h.map((m) => ({ path, ...m })) }));
    else steps.push(empty('grep', { pattern: 'legacy_price_round', path }, { matches: [] }));
  }
  steps.push(
    ok('edit_file', { path: 'app/routes/billing.py', old: 'legacy_price_round(raw_amount, currency)', new: 'money.round(raw_amount, currency)' }, { ok: true, replacements: 1 }),
    ok('edit_file', { path: 'app/routes/invoices.py', old: 'legacy_price_round(line.qty * line.unit_price, inv.currency)', new: 'money.round(line.qty * line.unit_price, inv.currency)' }, { ok: true, replacements: 1 }),
    ok('edit_file', { path: 'app/routes/invoices.py', old: 'from app.pricing import legacy_price_round', new: 'from app import money' }, { ok: true, replacements: 1 }),
    ok('edit_file', { path: 'app/routes/orders.py', old: 'legacy_price_round(order.total, order.currency)', new: 'money.round(order.total, order.currency)' }, { ok: true, replacements: 1 }),
    ok('run_tests', { cmd: 'pytest tests/routes -q' }, { exit_code: 0, stdout: `61 passed in ${secs(3, 4)}s` }),
  );
  add({
    id: 'n-grep-route-modules',
    label: 'normal',
    title: 'coding agent greps each of 14 route modules for a deprecated helper; 11 have none',
    steps,
    expect: {},
    note: 'a per-file sweep over a listed directory, most files without a match (six in a row at the end of the alphabet); every grep has new arguments taken from the listing, and the sweep ends in edits and green tests',
  });
}

{
  const flags = ['ENABLE_NEW_CHECKOUT', 'USE_V2_PRICING', 'SHOW_BETA_BANNER', 'ENABLE_SSO_LOGIN', 'LEGACY_EXPORT_CSV', 'ASYNC_EMAIL_QUEUE'];
  add({
    id: 'n-flag-cleanup-verify',
    label: 'normal',
    title: 'coding agent confirms six fully-rolled-out feature flags have no references left before deleting them',
    steps: [
      ok('read_file', { path: 'config/flags.yaml' }, { content: flags.map((f) => `${f}:\n  enabled: true\n  rollout: 100\n  since: 2025-0${(flags.indexOf(f) % 9) + 1}-01`).join('\n') }),
      ...flags.map((f) => empty('grep', { pattern: f, path: 'src', glob: '*.{ts,tsx}' }, { matches: [], files_searched: 1843 })),
      ok('edit_file', { path: 'config/flags.yaml', old: flags.map((f) => `${f}:`).join(' … '), new: '' }, { ok: true, replacements: 6 }),
      ok('run_tests', { cmd: 'npm test -- --silent' }, { exit_code: 0, stdout: `Tests: 912 passed, 912 total\nTime: ${secs(40, 55)} s` }),
      ok('git_commit', { message: 'Remove six fully rolled-out feature flags' }, { sha: hex(7), files_changed: 1 }),
    ],
    expect: {},
    note: 'six greps in a row find nothing, and nothing is the answer the agent wants: each searches a different flag read from the config file, then the flags are removed. Contrast S2 (made-up ids of one template)',
  });
}

{
  const tasks = [
    '> Task :buildSrc:compileKotlin',
    '> Task :core:compileJava',
    '> Task :core:processResources',
    '> Task :core:classes',
    '> Task :core:jar',
    '> Task :api:compileJava',
    'Note: Some input files use unchecked or unsafe operations.',
    '> Task :api:processResources',
    '> Task :api:classes',
    '> Task :api:jar',
    '> Task :service:compileJava',
    '> Task :service:classes',
    '> Task :service:bootJar',
    '> Task :core:compileTestJava',
    '> Task :core:test',
    'CoreTests > parsesConfig() PASSED',
    'CoreTests > rejectsBadPort() PASSED',
    '> Task :api:test',
    'ApiTests > listsOrders() PASSED',
    '> Task :service:test',
    'ServiceTests > startsWithDefaults() PASSED',
    '> Task :check',
    '> Task :build',
    '',
    'BUILD SUCCESSFUL in 2m 14s',
    '31 actionable tasks: 31 executed',
  ];
  const steps: Step[] = [ok('shell', { cmd: 'nohup ./gradlew build --console=plain > build.log 2>&1 &' }, { exit_code: 0, stdout: '[1] 48213' })];
  // The log grows by one to two lines between reads; one read finds it unchanged (a long compile step).
  const shown = [1, 2, 3, 5, 6, 7, 8, 10, 11, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 26];
  for (const n of shown) {
    const content = tasks.slice(0, n).join('\n');
    steps.push(ok('read_file', { path: 'build.log' }, { content, size: Buffer.byteLength(content) }));
  }
  steps.push(ok('shell', { cmd: 'ls -la service/build/libs' }, { exit_code: 0, stdout: 'service-0.9.0.jar  41M' }));
  add({
    id: 'n-growing-build-log',
    label: 'normal',
    title: 'coding agent reads a background build log 24 times while it grows, until BUILD SUCCESSFUL',
    steps: timed(steps, 6000),
    expect: {},
    note: 'the same read_file call 24 times; the content grows between reads (once it is unchanged, during a long compile): reading a growing stream is progress (DESIGN §7)',
  });
}

{
  const chunks = [
    'Collecting pandas==2.2.2\n  Downloading pandas-2.2.2-cp311-cp311-manylinux_2_17_x86_64.whl (13.0 MB)',
    '     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 13.0/13.0 MB 9.1 MB/s eta 0:00:00',
    'Collecting scipy==1.13.1\n  Downloading scipy-1.13.1-cp311-cp311-manylinux_2_17_x86_64.whl (38.6 MB)',
    '     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 38.6/38.6 MB 8.7 MB/s eta 0:00:00',
    'Collecting pyarrow==16.1.0\n  Downloading pyarrow-16.1.0-cp311-cp311-manylinux_2_28_x86_64.whl (40.8 MB)',
    '     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 40.8/40.8 MB 9.4 MB/s eta 0:00:00',
    'Collecting psycopg2==2.9.9\n  Downloading psycopg2-2.9.9.tar.gz (384 kB)',
    '  Preparing metadata (setup.py) ... done',
    'Collecting python-dateutil>=2.8.2\n  Using cached python_dateutil-2.9.0.post0-py2.py3-none-any.whl (229 kB)',
    'Collecting pytz>=2020.1\n  Using cached pytz-2024.1-py2.py3-none-any.whl (505 kB)',
    'Collecting tzdata>=2022.7\n  Using cached tzdata-2024.1-py2.py3-none-any.whl (345 kB)',
    'Building wheels for collected packages: psycopg2',
    '  Building wheel for psycopg2 (setup.py) ... -',
    '  Building wheel for psycopg2 (setup.py) ... \\',
    '  Building wheel for psycopg2 (setup.py) ... |',
    '  Building wheel for psycopg2 (setup.py) ... done\n  Created wheel for psycopg2: filename=psycopg2-2.9.9-cp311-cp311-linux_x86_64.whl size=495112',
    'Successfully built psycopg2',
    'Installing collected packages: pytz, tzdata, python-dateutil, numpy',
    'Installing collected packages: pyarrow, scipy, pandas, psycopg2',
  ];
  const running = '[The command is still running. Send empty input to see more output, or C-c to interrupt.]';
  const steps: Step[] = [
    pending('execute_bash', { command: 'pip install -r requirements.txt', timeout: 30 }, { output: 'Collecting numpy==1.26.4\n  Downloading numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.whl (18.3 MB)', exit_code: -1, note: running }),
  ];
  for (const c of chunks) steps.push(pending('execute_bash', { command: '', is_input: true }, { output: c, exit_code: -1, note: running }));
  steps.push(
    ok('execute_bash', { command: '', is_input: true }, { output: 'Successfully installed numpy-1.26.4 pandas-2.2.2 psycopg2-2.9.9 pyarrow-16.1.0 python-dateutil-2.9.0.post0 pytz-2024.1 scipy-1.13.1 tzdata-2024.1', exit_code: 0 }),
    ok('execute_bash', { command: 'python -c "import pandas, pyarrow; print(pandas.__version__, pyarrow.__version__)"' }, { output: '2.2.2 16.1.0', exit_code: 0 }),
  );
  add({
    id: 'n-continue-long-install',
    label: 'normal',
    title: 'coding agent continues a long pip install with empty input 20 times while output keeps coming',
    steps: timed(steps, 10000),
    expect: {},
    note: 'status pending: the command has not finished (README: accepted, not finished). The continuation call is identical every time but every answer carries new output; continuing with empty input is how terminal tools wait (DESIGN §7)',
  });
}

{
  const modules: Array<{ name: string; importers: string[] }> = [
    { name: 'dates', importers: ['src/orders/list.ts', 'src/reports/monthly.ts', 'src/ui/format.ts'] },
    { name: 'money', importers: ['src/orders/totals.ts', 'src/reports/monthly.ts'] },
    { name: 'slug', importers: ['src/catalog/product.ts'] },
    { name: 'retry', importers: ['src/api/client.ts', 'src/jobs/sync.ts'] },
    { name: 'env', importers: ['src/server.ts', 'src/jobs/sync.ts', 'src/db/pool.ts'] },
    { name: 'csv', importers: ['src/reports/export.ts'] },
    { name: 'hash', importers: ['src/auth/session.ts', 'src/api/etag.ts'] },
    { name: 'paginate', importers: ['src/orders/list.ts', 'src/catalog/search.ts'] },
  ];
  const steps: Step[] = [ok('list_dir', { path: 'src/utils' }, { entries: modules.map((m) => `${m.name}.ts`).concat('index.ts') })];
  for (const m of modules) {
    steps.push(ok('move_file', { from: `src/utils/${m.name}.ts`, to: `src/lib/${m.name}.ts` }, { ok: true }));
    for (const imp of m.importers) {
      const depth = imp.split('/').length - 2;
      const up = depth === 0 ? './' : '../'.repeat(depth);
      steps.push(ok('edit_file', { path: imp, old: `from '${up}utils/${m.name}.js'`, new: `from '${up}lib/${m.name}.js'` }, { ok: true, replacements: 1 }));
    }
  }
  steps.push(
    ok('shell', { cmd: 'npx tsc --noEmit' }, { exit_code: 2, stdout: "src/utils/index.ts(1,15): error TS2307: Cannot find module './dates.js' or its corresponding type declarations.\nFound 8 errors in 1 file." }),
    ok('delete_file', { path: 'src/utils/index.ts' }, { ok: true }),
    ok('shell', { cmd: 'npx tsc --noEmit' }, { exit_code: 0, stdout: '' }),
  );
  add({
    id: 'n-move-modules-fix-imports',
    label: 'normal',
    title: 'coding agent moves 8 modules from src/utils to src/lib and fixes every import',
    steps,
    expect: {},
    note: 'move_file and edit_file interleave for 24 calls and every result is the same {ok:true}, but no call repeats: a refactor over many files (DESIGN §7 names it as legitimate repetition once flagged by other detectors)',
  });
}

{
  add({
    id: 'n-support-refund',
    label: 'normal',
    title: 'support agent verifies a damaged-item claim, refunds one line and replies',
    steps: [
      ok('lookup_customer', { email: 'maria.santos@example.com' }, { customer_id: 'C-20931', name: 'Maria Santos', tier: 'gold' }),
      ok('list_orders', { customer_id: 'C-20931', since: '2026-10-01' }, { orders: [{ id: 'SO-88412', placed: '2026-11-21', total: 184.9 }, { id: 'SO-87110', placed: '2026-10-14', total: 42.0 }] }),
      ok('get_order', { order_id: 'SO-88412' }, { id: 'SO-88412', status: 'delivered', lines: [{ sku: 'LMP-204', name: 'Desk lamp', qty: 1, price: 59.9 }, { sku: 'CHR-11', name: 'Office chair', qty: 1, price: 125.0 }], delivered: '2026-11-25' }),
      ok('get_ticket', { ticket_id: 'T-55190' }, { subject: 'Lamp arrived broken', attachments: ['photo_1.jpg'], messages: 2 }),
      ok('check_policy', { topic: 'damaged_on_arrival', days_since_delivery: 5 }, { eligible: true, max_refund: 'line_total', requires_photo: true }),
      ok('create_refund', { order_id: 'SO-88412', sku: 'LMP-204', amount: 59.9, reason: 'damaged_on_arrival' }, { refund_id: 'RF-9Q2K7', status: 'approved', created_at: iso(BASE, 5 * 60000) }),
      ok('send_message', { ticket_id: 'T-55190', body: 'Hi Maria, sorry the lamp arrived broken. I have refunded 59.90 EUR to your card; it shows within 3-5 business days. No need to return it.' }, { message_id: `msg_${hex(16)}`, sent_at: iso(BASE, 5 * 60000 + 4000) }),
      ok('add_note', { ticket_id: 'T-55190', note: 'DOA lamp, photo verified, refund RF-9Q2K7' }, { ok: true, note_id: 'N-7731' }),
      ok('set_ticket_status', { ticket_id: 'T-55190', status: 'solved' }, { ok: true, status: 'solved' }),
    ],
    expect: {},
    note: 'a short support workflow: every call different, fresh ids in write results',
  });
}

{
  const customers = [
    ['Ana', 'ana.ribeiro@example.com', '12.40'],
    ['Tomasz', 'tomasz.k@example.com', '31.00'],
    ['Priya', 'priya.n@example.com', '8.75'],
    ['Jonas', 'jonas.weber@example.com', '54.20'],
    ['Keiko', 'keiko.s@example.com', '12.40'],
    ['Omar', 'omar.haddad@example.com', '19.90'],
    ['Lucía', 'lucia.m@example.com', '8.75'],
    ['Ben', 'ben.ochieng@example.com', '27.10'],
  ] as const;
  const steps: Step[] = [
    ok('query_incident', { incident_id: 'INC-3318' }, { title: 'EU checkout outage', started: '2026-11-28T14:02Z', ended: '2026-11-28T15:47Z', affected_accounts: 8 }),
    ok('list_affected_customers', { incident_id: 'INC-3318' }, { customers: customers.map(([n, e]) => ({ name: n, email: e })) }),
  ];
  customers.forEach(([name, email, credit], i) => {
    steps.push(
      ok('issue_credit', { email, amount: Number(credit), currency: 'EUR', reason: 'INC-3318' }, { credit_id: `CR-${hex(6).toUpperCase()}`, balance_after: Number(credit), created_at: iso(BASE, i * 20000) }),
      ok(
        'send_email',
        { to: email, subject: 'A credit for last Friday’s checkout outage', body: `Hi ${name},\n\nOn 28 November our checkout was unavailable for about two hours. We have added a credit of ${credit} EUR to your account.\n\nSorry for the trouble.` },
        { message_id: `<${Date.UTC(2026, 10, 30)}.${hex(10)}@mail.example.com>`, status: 'queued', queued_at: iso(BASE, i * 20000 + 3000) },
      ),
    );
  });
  add({
    id: 'n-notify-affected-customers',
    label: 'normal',
    title: 'support agent credits and emails 8 customers affected by an outage',
    steps,
    expect: {},
    note: 'sixteen writes whose results differ only by fresh ids and timestamps, but every call sends a different message to a different person: volatile fields being masked must not turn distinct sends into a loop',
  });
}

{
  add({
    id: 'n-research-rate-limits',
    label: 'normal',
    title: 'research agent compares API rate-limit policies across three providers and writes a summary',
    steps: [
      ok('web_search', { query: 'API rate limit headers retry-after best practices' }, { results: [{ url: 'https://developer.example.org/docs/web/http/headers/retry-after', title: 'Retry-After' }, { url: 'https://www.example.com/blog/rate-limiting-strategies', title: 'Rate limiting strategies' }, { url: 'https://datatracker.example.org/doc/draft-ietf-httpapi-ratelimit-headers', title: 'RateLimit header fields for HTTP' }] }),
      ok('fetch_page', { url: 'https://developer.example.org/docs/web/http/headers/retry-after' }, { title: 'Retry-After', text: 'The Retry-After response HTTP header indicates how long the user agent should wait before making a follow-up request...' }),
      ok('fetch_page', { url: 'https://datatracker.example.org/doc/draft-ietf-httpapi-ratelimit-headers' }, { title: 'RateLimit header fields for HTTP', text: 'This document defines the RateLimit-Policy and RateLimit HTTP header fields...' }),
      ok('web_search', { query: 'github rest api rate limit secondary limits' }, { results: [{ url: 'https://docs.github.example/rest/rate-limit', title: 'Rate limits for the REST API' }] }),
      ok('fetch_page', { url: 'https://docs.github.example/rest/rate-limit' }, { title: 'Rate limits for the REST API', text: 'Primary rate limit for authenticated users: 5,000 requests per hour...' }),
      ok('web_search', { query: 'stripe api rate limits 429 lock_timeout' }, { results: [{ url: 'https://docs.stripe.example/rate-limits', title: 'Rate limits' }] }),
      ok('fetch_page', { url: 'https://docs.stripe.example/rate-limits' }, { title: 'Rate limits', text: 'In live mode: 100 read operations per second, 100 write operations per second...' }),
      ok('web_search', { query: 'slack web api rate limit tiers' }, { results: [{ url: 'https://api.slack.example/docs/rate-limits', title: 'Rate limits | Slack' }] }),
      ok('fetch_page', { url: 'https://api.slack.example/docs/rate-limits' }, { title: 'Rate limits', text: 'Tier 1: 1+ per minute; Tier 2: 20+ per minute; Tier 3: 50+ per minute...' }),
      ok('fetch_page', { url: 'https://docs.github.example/rest/rate-limit' }, { title: 'Rate limits for the REST API', text: 'Primary rate limit for authenticated users: 5,000 requests per hour...' }),
      ok('write_file', { path: 'notes/rate-limits.md', content: '| provider | limit | header |\n| GitHub | 5000/h | x-ratelimit-remaining |\n| Stripe | 100/s | - |\n| Slack | tiered | Retry-After |' }, { written: 132 }),
      ok('write_file', { path: 'notes/rate-limits.md', content: '| provider | limit | header |\n| GitHub | 5000/h + secondary | x-ratelimit-remaining |\n| Stripe | 100/s read, 100/s write | - |\n| Slack | tiers 1-4 | Retry-After |\n\nAll three send 429 with Retry-After.' }, { written: 201 }),
    ],
    expect: {},
    note: 'searches and page reads, one page re-opened once to quote it, a draft rewritten once',
  });
}

{
  const steps: Step[] = [];
  const pages = 12;
  for (let p = 1; p <= pages; p++) {
    const first = (p - 1) * 100 + 1;
    steps.push(
      ok(
        'fetch_records',
        { endpoint: '/v2/invoices', params: { updated_since: '2026-11-01', page: p, per_page: 100 } },
        { page: p, total_pages: pages, count: p === pages ? 37 : 100, records: [{ id: `INV-${40000 + first}`, amount: 120 + p }, { id: `INV-${40000 + first + 1}`, amount: 80 + p }, { id: `INV-${40000 + first + 2}`, amount: 310 - p }] },
      ),
    );
  }
  steps.push(ok('transform', { script: 'invoices_to_ledger.sql', input: 'staging.invoices_raw' }, { rows_in: 1137, rows_out: 1137, rejected: 0 }));
  for (let b = 0; b < 4; b++) {
    steps.push(ok('load_rows', { table: 'ledger.invoice_lines', source: 'staging.invoices_ledger', offset: b * 300, limit: 300 }, { inserted: b === 3 ? 237 : 300, load_id: `ld_${hex(12)}`, finished_at: iso(BASE, b * 9000) }));
  }
  steps.push(ok('run_sql', { sql: "SELECT count(*) FROM ledger.invoice_lines WHERE batch_date = '2026-11-30'" }, { rows: [{ count: 1137 }] }));
  add({
    id: 'n-etl-pagination-load',
    label: 'normal',
    title: 'ETL agent pages through 12 pages of invoices once each, transforms, loads 4 batches, verifies the count',
    steps,
    expect: {},
    note: 'pagination done right: pages 1..12 once each; load batches differ by offset and return the same count with fresh load ids',
  });
}

{
  add({
    id: 'n-sql-exploration',
    label: 'normal',
    title: 'data agent explores an unfamiliar schema, fixes two SQL errors, answers the question',
    steps: [
      ok('list_tables', { schema: 'analytics' }, { tables: ['events', 'sessions', 'users', 'plans', 'subscriptions'] }),
      ok('describe_table', { table: 'analytics.subscriptions' }, { columns: [['id', 'bigint'], ['user_id', 'bigint'], ['plan_id', 'int'], ['started_at', 'timestamptz'], ['cancelled_at', 'timestamptz']] }),
      ok('describe_table', { table: 'analytics.plans' }, { columns: [['id', 'int'], ['name', 'text'], ['monthly_price_cents', 'int']] }),
      fail('run_sql', { sql: 'SELECT p.name, count(*) FROM analytics.subscriptions s JOIN analytics.plans p ON p.id = s.plan_id WHERE s.canceled_at IS NULL GROUP BY 1' }, 'ERROR: column s.canceled_at does not exist\nHINT: Perhaps you meant to reference the column "s.cancelled_at".'),
      fail('run_sql', { sql: 'SELECT p.name, count(*), sum(p.monthly_price) FROM analytics.subscriptions s JOIN analytics.plans p ON p.id = s.plan_id WHERE s.cancelled_at IS NULL GROUP BY 1' }, 'ERROR: column p.monthly_price does not exist'),
      ok('run_sql', { sql: 'SELECT p.name, count(*), sum(p.monthly_price_cents)/100.0 AS mrr FROM analytics.subscriptions s JOIN analytics.plans p ON p.id = s.plan_id WHERE s.cancelled_at IS NULL GROUP BY 1 ORDER BY 3 DESC' }, { rows: [{ name: 'Team', count: 412, mrr: 16068.0 }, { name: 'Pro', count: 1893, mrr: 22716.0 }, { name: 'Starter', count: 5210, mrr: 20840.0 }] }),
      ok('run_sql', { sql: "SELECT date_trunc('month', started_at) AS m, count(*) FROM analytics.subscriptions WHERE started_at >= '2026-06-01' GROUP BY 1 ORDER BY 1" }, { rows: [{ m: '2026-06-01', count: 801 }, { m: '2026-07-01', count: 774 }, { m: '2026-08-01', count: 836 }, { m: '2026-09-01', count: 910 }, { m: '2026-10-01', count: 1002 }, { m: '2026-11-01', count: 955 }] }),
      ok('write_file', { path: 'answers/mrr-by-plan.md', content: 'MRR by plan (active subscriptions): Pro 22,716; Starter 20,840; Team 16,068. New subscriptions grew 19% Jun→Oct.' }, { written: 118 }),
    ],
    expect: {},
    note: 'two failed queries, each a different mistake fixed by the next attempt',
  });
}

{
  const dep = 'dpl_7Hq2mX';
  const poll = (state: string, extra: Record<string, unknown> = {}): Step =>
    ok('get_deployment', { id: dep }, { id: dep, state, target: 'production', ...extra });
  add({
    id: 'n-deploy-poll-states',
    label: 'normal',
    title: 'ops agent triggers a deploy and polls it through QUEUED, BUILDING, DEPLOYING (1/3..3/3), READY, then smoke-tests',
    steps: timed(
      [
        ok('trigger_deploy', { project: 'storefront', ref: 'release/2026.11.30', target: 'production' }, { id: dep, state: 'QUEUED', created_at: iso(BASE, 0) }),
        poll('QUEUED'),
        poll('BUILDING', { build_step: 'install' }),
        poll('BUILDING', { build_step: 'compile' }),
        poll('BUILDING', { build_step: 'compile' }),
        poll('BUILDING', { build_step: 'bundle' }),
        poll('DEPLOYING', { ready_replicas: 1, replicas: 3 }),
        poll('DEPLOYING', { ready_replicas: 2, replicas: 3 }),
        poll('DEPLOYING', { ready_replicas: 3, replicas: 3 }),
        poll('READY', { ready_replicas: 3, replicas: 3, url: 'https://storefront.example.com' }),
        ok('http_get', { url: 'https://storefront.example.com/healthz' }, { status: 200, body: { ok: true, version: '2026.11.30' } }),
        ok('http_get', { url: 'https://storefront.example.com/api/products?limit=1' }, { status: 200, body: { items: [{ sku: 'LMP-204' }] } }),
        ok('post_message', { channel: '#deploys', text: 'storefront release/2026.11.30 is live in production; smoke tests pass.' }, { ok: true, ts: '1795943712.004100', channel: 'C024BE91L' }),
      ],
      20000,
    ),
    expect: {},
    note: 'a status poll whose answer moves; at most two identical answers in a row (as in the shared S6); calls are 20 s apart',
  });
}

{
  add({
    id: 'n-rate-limited-api',
    label: 'normal',
    title: 'integration agent hits 429 twice on one endpoint and once on another, succeeding after each wait',
    steps: timed(
      [
        fail('http_get', { url: 'https://api.crm.example.com/v3/contacts?updated_after=2026-11-29' }, 'HTTP 429 Too Many Requests (Retry-After: 2)'),
        fail('http_get', { url: 'https://api.crm.example.com/v3/contacts?updated_after=2026-11-29' }, 'HTTP 429 Too Many Requests (Retry-After: 4)'),
        ok('http_get', { url: 'https://api.crm.example.com/v3/contacts?updated_after=2026-11-29' }, { status: 200, body: { contacts: [{ id: 'ct_1002', email: 'a@example.net' }, { id: 'ct_1017', email: 'b@example.net' }], next: 'cur_Mg' } }),
        ok('http_get', { url: 'https://api.crm.example.com/v3/contacts?updated_after=2026-11-29&cursor=cur_Mg' }, { status: 200, body: { contacts: [{ id: 'ct_1031', email: 'c@example.net' }], next: null } }),
        fail('http_post', { url: 'https://api.crm.example.com/v3/contacts/ct_1002/notes', body: { text: 'synced from billing' } }, 'HTTP 429 Too Many Requests (Retry-After: 1)'),
        ok('http_post', { url: 'https://api.crm.example.com/v3/contacts/ct_1002/notes', body: { text: 'synced from billing' } }, { status: 201, body: { id: 'note_88121', created_at: iso(BASE, 40000) } }),
        ok('http_post', { url: 'https://api.crm.example.com/v3/contacts/ct_1017/notes', body: { text: 'synced from billing' } }, { status: 201, body: { id: 'note_88122', created_at: iso(BASE, 42000) } }),
        ok('http_post', { url: 'https://api.crm.example.com/v3/contacts/ct_1031/notes', body: { text: 'synced from billing' } }, { status: 201, body: { id: 'note_88123', created_at: iso(BASE, 44000) } }),
      ],
      2000,
    ),
    expect: {},
    note: 'a retry against a flaky API: 429 then success, twice',
  });
}

{
  const psql = { cmd: 'psql "$DATABASE_URL" -c "select 1"' };
  const refused = 'psql: error: connection to server at "10.0.3.12", port 5432 failed: Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?';
  const waits = [0, 3000, 5000, 9000, 17000, 33000, 65000, 129000];
  const steps: Step[] = [ok('shell', { cmd: 'sudo systemctl restart postgresql@16-main' }, { exit_code: 0, stdout: '' }, { t: 0 })];
  for (let i = 0; i < 7; i++) steps.push(fail('shell', psql, refused, { t: 2000 + waits[i]! }));
  steps.push(ok('shell', psql, { exit_code: 0, stdout: ' ?column? \n----------\n        1\n(1 row)' }, { t: 2000 + waits[7]! }));
  steps.push(ok('shell', { cmd: 'npm run migrate' }, { exit_code: 0, stdout: 'Batch 14 run: 2 migrations\n  20261129_add_refund_reason.js\n  20261130_index_orders_created.js' }, { t: 135000 }));
  steps.push(ok('shell', { cmd: 'npm run migrate:status' }, { exit_code: 0, stdout: 'No pending migrations' }, { t: 141000 }));
  add({
    id: 'n-backoff-until-db-up',
    label: 'normal',
    title: 'ops agent restarts Postgres and retries a connection check with exponential backoff; 7 refusals, then up',
    steps,
    expect: {},
    note: 'seven identical failures in a row (t shows the backoff doubling), then recovery: a retry against an outage, which DESIGN §3 says is a retry first and a loop only much later (compare the shared N5)',
  });
}

{
  const job = 'exp_01JDX4K2W9';
  const progress = [4, 11, 23, 37, 52, 64, 79, 91];
  const steps: Step[] = [
    pending('start_export', { dataset: 'orders', format: 'parquet', range: { from: '2026-01-01', to: '2026-11-30' } }, { job_id: job, status: 'queued', submitted_at: iso(BASE, 0) }),
  ];
  progress.forEach((p, i) => {
    steps.push(pending('get_export_status', { job_id: job }, { job_id: job, status: 'running', progress_pct: p, rows_written: Math.round(p * 48213.7), checked_at: iso(BASE, (i + 1) * 15000) }));
  });
  steps.push(ok('get_export_status', { job_id: job }, { job_id: job, status: 'succeeded', progress_pct: 100, rows_written: 4821370, file: 's3://exports/orders-2026.parquet' }));
  steps.push(ok('download_file', { url: 's3://exports/orders-2026.parquet', to: 'data/orders-2026.parquet' }, { bytes: 184022381 }));
  add({
    id: 'n-async-export-poll',
    label: 'normal',
    title: 'data agent submits one export job, then polls its status while progress climbs 4% → 100%',
    steps: timed(steps, 15000),
    expect: {},
    note: 'submitted once; each poll answers "running" (status pending: not finished) with a higher progress and row count. Waiting on a job is what pending-resubmit must tell apart from re-submitting it (contrast S3 and l-ci-resubmit-pending)',
  });
}

{
  add({
    id: 'n-crud-webhook',
    label: 'normal',
    title: 'ops agent creates, reads, updates, verifies and deletes a webhook subscription',
    steps: [
      ok('list_webhooks', { account: 'acct_51Ab' }, { webhooks: [{ id: 'wh_100', url: 'https://hooks.example.com/legacy', events: ['order.created'] }] }),
      ok('create_webhook', { account: 'acct_51Ab', url: 'https://hooks.example.com/v2/orders', events: ['order.created', 'order.refunded'] }, { id: 'wh_204', secret: 'whsec_••••', created_at: iso(BASE, 1000) }),
      ok('get_webhook', { id: 'wh_204' }, { id: 'wh_204', url: 'https://hooks.example.com/v2/orders', events: ['order.created', 'order.refunded'], status: 'enabled' }),
      ok('update_webhook', { id: 'wh_204', events: ['order.created', 'order.refunded', 'order.cancelled'] }, { id: 'wh_204', updated_at: iso(BASE, 9000) }),
      ok('get_webhook', { id: 'wh_204' }, { id: 'wh_204', url: 'https://hooks.example.com/v2/orders', events: ['order.created', 'order.refunded', 'order.cancelled'], status: 'enabled' }),
      ok('send_test_event', { id: 'wh_204', event: 'order.cancelled' }, { delivered: true, response_status: 200, delivery_id: 'dlv_9x1' }),
      ok('delete_webhook', { id: 'wh_100' }, { deleted: true }),
      empty('get_webhook', { id: 'wh_100' }, { error: 'not_found' }),
      ok('list_webhooks', { account: 'acct_51Ab' }, { webhooks: [{ id: 'wh_204', url: 'https://hooks.example.com/v2/orders', events: ['order.created', 'order.refunded', 'order.cancelled'] }] }),
    ],
    expect: {},
    note: 'a CRUD sequence: the same get appears three times, each time after a write that changed what it returns',
  });
}

{
  const items = (from: number) => Array.from({ length: 5 }, (_, i) => ({ title: `Senior Backend Engineer ${from + i}`, company: `Co${(from + i) * 7 % 97}`, href: `/jobs/${52100 + from + i}` }));
  const steps: Step[] = [
    ok('browser_navigate', { url: 'https://jobs.example.com/search?q=backend+engineer&loc=remote-eu' }, { title: 'backend engineer jobs - remote EU', snapshot: { listings: items(0) } }),
  ];
  for (let k = 1; k <= 9; k++) steps.push(ok('browser_scroll', { direction: 'down', pixels: 1200 }, { new_listings: items(k * 5), scroll_y: 1200 * k }));
  steps.push(ok('browser_scroll', { direction: 'down', pixels: 1200 }, { new_listings: [], scroll_y: 10800, end_of_page: true }));
  steps.push(ok('write_file', { path: 'jobs/remote-eu-backend.csv', content: 'title,company,href\n… 50 rows' }, { written: 3877 }));
  add({
    id: 'n-browser-infinite-scroll',
    label: 'normal',
    title: 'browsing agent scrolls an infinite job list 10 times with the same arguments, collecting 50 listings',
    steps,
    expect: {},
    note: 'the identical scroll call repeats; every answer brings new listings, the last one says end of page',
  });
}

{
  const next = { selector: 'button:has-text("Continue")' };
  add({
    id: 'n-browser-form-wizard',
    label: 'normal',
    title: 'browsing agent fills a 5-page visa application form, pressing the same Continue button after each page',
    steps: [
      ok('browser_navigate', { url: 'https://apply.example.gov/evisa/start' }, { title: 'eVisa application – 1 of 5: Traveller', fields: ['given_name', 'surname', 'date_of_birth', 'nationality'] }),
      ok('browser_fill', { fields: { given_name: 'Sofia', surname: 'Lindqvist', date_of_birth: '1991-04-17', nationality: 'SE' } }, { filled: 4 }),
      ok('browser_click', next, { title: 'eVisa application – 2 of 5: Passport', fields: ['passport_number', 'issued', 'expires'] }),
      ok('browser_fill', { fields: { passport_number: 'AA1234567', issued: '2022-03-01', expires: '2032-03-01' } }, { filled: 3 }),
      ok('browser_click', next, { title: 'eVisa application – 3 of 5: Trip', fields: ['arrival', 'departure', 'purpose'] }),
      ok('browser_fill', { fields: { arrival: '2027-02-10', departure: '2027-02-24', purpose: 'tourism' } }, { filled: 3 }),
      ok('browser_click', next, { title: 'eVisa application – 3 of 5: Trip', errors: ['Address during stay is required'] }),
      ok('browser_fill', { fields: { address: 'Hotel Miramar, 12 Rua do Sol, Lisbon' } }, { filled: 1 }),
      ok('browser_click', next, { title: 'eVisa application – 4 of 5: Declarations', fields: ['criminal_record', 'previous_refusal'] }),
      ok('browser_fill', { fields: { criminal_record: 'no', previous_refusal: 'no' } }, { filled: 2 }),
      ok('browser_click', next, { title: 'eVisa application – 5 of 5: Review', summary: { name: 'Sofia Lindqvist', arrival: '2027-02-10' } }),
      ok('browser_click', { selector: 'button:has-text("Submit application")' }, { title: 'Application received', reference: 'EV-2026-7741903' }),
    ],
    expect: {},
    note: 'the same click six times; each lands on a different page (once on the same page with a validation error, which the agent fixes)',
  });
}

{
  const pods = (rows: string[]) => ({ stdout: `NAME                       READY   STATUS    RESTARTS   AGE\n${rows.join('\n')}` });
  add({
    id: 'n-k8s-crashloop-fix',
    label: 'normal',
    title: 'ops agent diagnoses a CrashLoopBackOff (missing env var), patches the deployment and watches pods recover',
    steps: timed(
      [
        ok('kubectl', { args: 'get pods -n payments' }, pods(['payments-api-6f7d9c-2xkqz   0/1     CrashLoopBackOff   6   9m', 'payments-api-6f7d9c-8hlmv   0/1     CrashLoopBackOff   6   9m'])),
        ok('kubectl', { args: 'logs payments-api-6f7d9c-2xkqz -n payments --tail=20' }, { stdout: 'Error: missing required environment variable STRIPE_WEBHOOK_SECRET\n    at loadConfig (/app/dist/config.js:22:11)' }),
        ok('kubectl', { args: 'get secret payments-secrets -n payments -o jsonpath={.data}' }, { stdout: '{"STRIPE_API_KEY":"c2tf…","STRIPE_WEBHOOK_SECRET":"d2hz…"}' }),
        ok('kubectl', { args: 'get deployment payments-api -n payments -o yaml' }, { stdout: 'env:\n- name: STRIPE_API_KEY\n  valueFrom: {secretKeyRef: {name: payments-secrets, key: STRIPE_API_KEY}}' }),
        ok('kubectl', { args: 'set env deployment/payments-api -n payments --from=secret/payments-secrets --keys=STRIPE_WEBHOOK_SECRET' }, { stdout: 'deployment.apps/payments-api env updated' }),
        ok('kubectl', { args: 'get pods -n payments' }, pods(['payments-api-58b4f1-jr2nd   0/1     ContainerCreating   0   3s', 'payments-api-6f7d9c-2xkqz   0/1     CrashLoopBackOff    7   10m', 'payments-api-6f7d9c-8hlmv   0/1     CrashLoopBackOff    7   10m'])),
        ok('kubectl', { args: 'get pods -n payments' }, pods(['payments-api-58b4f1-jr2nd   1/1     Running       0   21s', 'payments-api-58b4f1-q9wzt   0/1     ContainerCreating   0   2s', 'payments-api-6f7d9c-8hlmv   0/1     Terminating   7   10m'])),
        ok('kubectl', { args: 'get pods -n payments' }, pods(['payments-api-58b4f1-jr2nd   1/1     Running   0   44s', 'payments-api-58b4f1-q9wzt   1/1     Running   0   25s'])),
        ok('kubectl', { args: 'logs payments-api-58b4f1-jr2nd -n payments --tail=5' }, { stdout: 'listening on :8080\nconnected to postgres\nwebhook endpoint ready' }),
      ],
      20000,
    ),
    expect: {},
    note: 'one tool for everything (kubectl); `get pods` is repeated while the rollout moves, every answer different',
  });
}

{
  const types = ok('read_file', { path: 'src/api/types.ts' }, { content: "export interface Order { id: string; customerId: string; lines: OrderLine[]; status: 'open' | 'paid' | 'shipped' }\nexport interface OrderLine { sku: string; qty: number; unitPrice: number }\nexport interface Page<T> { items: T[]; next: string | null }" });
  const endpoints = ['list-orders', 'get-order', 'create-order', 'cancel-order'];
  const steps: Step[] = [ok('read_file', { path: 'docs/api/orders.md' }, { content: '# Orders API\nGET /orders, GET /orders/:id, POST /orders, POST /orders/:id/cancel' })];
  let passed = 48;
  endpoints.forEach((e, i) => {
    steps.push(types);
    steps.push(ok('write_file', { path: `src/api/handlers/${e}.ts`, content: `import type { Order, Page } from '../types.js';\n// handler for ${e}\nexport async function handle(req: Request): Promise<Response> { /* … ${e} … */ }` }, { written: 640 + i * 97 }));
    steps.push(ok('write_file', { path: `test/api/${e}.test.ts`, content: `describe('${e}', () => { /* 3 cases */ })` }, { written: 410 + i * 53 }));
    passed += 3;
    steps.push(ok('run_tests', { cmd: `npx vitest run test/api/${e}.test.ts` }, { exit_code: 0, stdout: `✓ test/api/${e}.test.ts (3 tests)\nTest Files  1 passed (1)\n     Tests  3 passed (3)` }));
  });
  steps.push(ok('run_tests', { cmd: 'npx vitest run' }, { exit_code: 0, stdout: `Test Files  17 passed (17)\n     Tests  ${passed} passed (${passed})` }));
  add({
    id: 'n-reread-types-per-handler',
    label: 'normal',
    title: 'coding agent implements four API handlers, re-reading the shared types file before each one',
    steps,
    expect: {},
    note: 'the same read returns the same content four times, but between reads the agent writes new files and new tests pass: a reference re-read while work moves on elsewhere, not a loop',
  });
}

{
  add({
    id: 'n-try-revert-try',
    label: 'normal',
    title: 'coding agent tries a fix, sees it break more tests, reverts it, and tries a different fix that works',
    steps: [
      ok('run_tests', { cmd: 'go test ./internal/cache/...' }, { exit_code: 1, stdout: '--- FAIL: TestEvictionOrder (0.00s)\n    lru_test.go:41: got [b c a], want [c b a]\nFAIL\tgithub.com/acme/svc/internal/cache\t0.012s' }),
      ok('read_file', { path: 'internal/cache/lru.go' }, { content: 'func (c *LRU) Get(k string) (V, bool) {\n\te, ok := c.items[k]\n\tif !ok { return zero, false }\n\treturn e.Value.(*entry).v, true\n}' }),
      ok('edit_file', { path: 'internal/cache/lru.go', old: 'c.ll.PushFront(e)', new: 'c.ll.PushBack(e)' }, { ok: true, replacements: 1 }),
      ok('run_tests', { cmd: 'go test ./internal/cache/...' }, { exit_code: 1, stdout: '--- FAIL: TestEvictionOrder (0.00s)\n--- FAIL: TestCapacity (0.00s)\n--- FAIL: TestGetRefreshes (0.00s)\nFAIL\tgithub.com/acme/svc/internal/cache\t0.014s' }),
      ok('edit_file', { path: 'internal/cache/lru.go', old: 'c.ll.PushBack(e)', new: 'c.ll.PushFront(e)' }, { ok: true, replacements: 1 }),
      ok('edit_file', { path: 'internal/cache/lru.go', old: '\treturn e.Value.(*entry).v, true', new: '\tc.ll.MoveToFront(e)\n\treturn e.Value.(*entry).v, true' }, { ok: true, replacements: 1 }),
      ok('run_tests', { cmd: 'go test ./internal/cache/...' }, { exit_code: 0, stdout: 'ok  \tgithub.com/acme/svc/internal/cache\t0.011s' }),
      ok('run_tests', { cmd: 'go test ./...' }, { exit_code: 0, stdout: 'ok  \tgithub.com/acme/svc/internal/cache\t0.011s\nok  \tgithub.com/acme/svc/internal/api\t0.208s' }),
    ],
    expect: {},
    note: 'one write and its undo is an experiment, not an oscillation',
  });
}

// ------------------------------------------------------------------ loops --

{
  const content = { content: "import { z } from 'zod';\n\nexport const Config = z.object({\n  port: z.coerce.number().default(8080),\n  databaseUrl: z.string().url(),\n  redisUrl: z.string().url().optional(),\n});\n" };
  const steps: Step[] = [
    ok('list_dir', { path: 'src' }, { entries: ['config.ts', 'server.ts', 'db.ts', 'routes/'] }),
    ok('grep', { pattern: 'redisUrl', path: 'src' }, { matches: [{ path: 'src/config.ts', line: 6 }] }),
  ];
  for (let i = 0; i < 16; i++) steps.push(ok('read_file', { path: 'src/config.ts' }, content));
  add({
    id: 'l-reread-same-file',
    label: 'loop',
    title: 'coding agent reads the same unchanged config file 16 times in a row',
    steps,
    expect: { onset: 3, detectBy: 5, breakBy: 14 },
    note: 'identical call, identical result, back to back: no progress. Onset at the first read; the bar is the second repeat (as the shared L1), and 16 reads is long enough that the run must be stopped',
  });
}

{
  const search = ok('search_kb', { query: 'reset two-factor authentication lost phone' }, { articles: [{ id: 'KB-311', title: 'Set up two-factor authentication' }] });
  const open = ok('get_article', { id: 'KB-311' }, { id: 'KB-311', title: 'Set up two-factor authentication', body: 'Go to Settings → Security → Two-factor and scan the QR code with your authenticator app…' });
  const steps: Step[] = [ok('get_ticket', { ticket_id: 'T-60211' }, { subject: 'Lost my phone, cannot log in', body: 'I had 2FA on my old phone. How do I get back in?' })];
  for (let i = 0; i < 8; i++) steps.push(search, open);
  add({
    id: 'l-kb-search-open-pingpong',
    label: 'loop',
    title: 'support agent alternates the same knowledge-base search and the same (unhelpful) article',
    steps,
    expect: { onset: 2, detectBy: 5, breakBy: 13 },
    note: 'A-B-A-B with unchanged results on both sides; two full periods end at step 5',
  });
}

{
  const edit1 = ok('edit_file', { path: 'tsconfig.json', old: '"moduleResolution": "node"', new: '"moduleResolution": "bundler"' }, { ok: true, replacements: 1 });
  const tsc1 = ok('shell', { cmd: 'npx tsc --noEmit' }, { exit_code: 2, stdout: "src/server.ts(3,22): error TS2307: Cannot find module './db' or its corresponding type declarations.\nFound 14 errors in 9 files." });
  const edit2 = ok('edit_file', { path: 'tsconfig.json', old: '"moduleResolution": "bundler"', new: '"moduleResolution": "node"' }, { ok: true, replacements: 1 });
  const tsc2 = ok('shell', { cmd: 'npx tsc --noEmit' }, { exit_code: 2, stdout: "src/client.ts(1,28): error TS2307: Cannot find module 'undici/types' or its corresponding type declarations.\nFound 1 error in src/client.ts." });
  const steps: Step[] = [
    ok('shell', { cmd: 'npx tsc --noEmit' }, { exit_code: 2, stdout: "src/client.ts(1,28): error TS2307: Cannot find module 'undici/types' or its corresponding type declarations.\nFound 1 error in src/client.ts." }),
    ok('read_file', { path: 'tsconfig.json' }, { content: '{ "compilerOptions": { "module": "commonjs", "moduleResolution": "node", "strict": true } }' }),
  ];
  for (let i = 0; i < 5; i++) steps.push(edit1, tsc1, edit2, tsc2);
  add({
    id: 'l-tsconfig-write-undo',
    label: 'loop',
    title: 'coding agent flips moduleResolution between "node" and "bundler", each fixing one error and causing another',
    steps,
    expect: { onset: 3, detectBy: 10, breakBy: 20 },
    note: 'write/undo oscillation with a check in between: a period-4 cycle whose results cycle too (the state returns to where it was). Two full periods end at step 10',
  });
}

{
  const read = ok('read_file', { path: 'pipelines/customers/mapping.yaml' }, { content: 'fields:\n  email: {from: Email, type: string}\n  signup_date: {from: SignupDate, type: date, format: "%d/%m/%Y"}\n  country: {from: Country, type: string}' });
  // The agent "fixes" the mapping by writing back the same content it just read: the wrong format stays.
  const edit = ok('write_file', { path: 'pipelines/customers/mapping.yaml', content: 'fields:\n  email: {from: Email, type: string}\n  signup_date: {from: SignupDate, type: date, format: "%d/%m/%Y"}\n  country: {from: Country, type: string}\n' }, { written: 139 });
  const run = ok('run_pipeline', { pipeline: 'customers', mode: 'dry_run' }, { rows_read: 20000, rows_valid: 18112, errors: [{ field: 'signup_date', count: 1888, sample: '2026-03-14', message: "time data '2026-03-14' does not match format '%d/%m/%Y'" }] });
  const steps: Step[] = [
    ok('list_files', { path: 'pipelines/customers' }, { entries: ['mapping.yaml', 'pipeline.py', 'README.md'] }),
    run,
  ];
  for (let i = 0; i < 5; i++) steps.push(read, edit, run);
  add({
    id: 'l-etl-mapping-cycle',
    label: 'loop',
    title: 'ETL agent cycles read mapping → write the same mapping back → dry-run with the same 1888 errors',
    steps,
    expect: { onset: 3, detectBy: 8, breakBy: 17 },
    note: 'period-3 cycle, every result repeating: the write never changes the file and the dry run fails identically. Two full periods end at step 8',
  });
}

{
  const s1 = ok('web_search', { query: 'EU AI Act general purpose model obligations deadline' }, { results: [{ url: 'https://eur-lex.example.eu/eli/reg/2024/1689', title: 'Regulation (EU) 2024/1689' }, { url: 'https://www.example-law.eu/ai-act-timeline', title: 'AI Act timeline' }] });
  const o1 = ok('fetch_page', { url: 'https://eur-lex.example.eu/eli/reg/2024/1689' }, { title: 'Regulation (EU) 2024/1689', text: 'Article 113: This Regulation shall apply from 2 August 2026. However: (a) Chapters I and II shall apply from 2 February 2025; (b) Chapter V … shall apply from 2 August 2025…' });
  const o2 = ok('fetch_page', { url: 'https://www.example-law.eu/ai-act-timeline' }, { title: 'AI Act timeline', text: 'GPAI obligations apply from 2 August 2025; models placed on the market before that date have until 2 August 2027…' });
  const s2 = ok('web_search', { query: 'AI Act GPAI code of practice signatories' }, { results: [{ url: 'https://digital-strategy.example.eu/gpai-code', title: 'General-Purpose AI Code of Practice' }] });
  const o3 = ok('fetch_page', { url: 'https://digital-strategy.example.eu/gpai-code' }, { title: 'General-Purpose AI Code of Practice', text: 'The Code was published on 10 July 2025. Providers may sign…' });
  const steps: Step[] = [];
  for (let i = 0; i < 4; i++) steps.push(s1, o1, o2, s2, o3);
  add({
    id: 'l-research-period5',
    label: 'loop',
    title: 'research agent repeats the same two searches and three page reads, in the same order, four times',
    steps,
    expect: { onset: 1, detectBy: 10, breakBy: 20 },
    note: 'period-5 cycle over four distinct calls, results unchanged: the agent never writes an answer. Two full periods end at step 10; four periods is obviously stuck',
  });
}

{
  const lines = 2000;
  const page = (offset: number) =>
    ok('read_file', { path: 'logs/app-2026-11-29.log', offset, limit: 200 }, {
      lines: `${offset + 1}-${offset + 200} of ${lines}`,
      content: `2026-11-29 ${String(Math.floor(offset / 90)).padStart(2, '0')}:… [INFO] worker-${(offset / 200) % 4} processed batch ${offset / 200 + 1} …`,
      truncated: offset + 200 < lines,
    });
  const steps: Step[] = [ok('shell', { cmd: 'wc -l logs/app-2026-11-29.log' }, { exit_code: 0, stdout: '2000 logs/app-2026-11-29.log' })];
  for (let sweep = 0; sweep < 3; sweep++) {
    for (let off = 0; off < lines; off += 200) steps.push(page(off));
  }
  for (let off = 0; off < 800; off += 200) steps.push(page(off));
  add({
    id: 'l-log-paging-sweep-restarted',
    label: 'loop',
    title: 'ops agent pages through a 2000-line log in 10 pages, then starts over from line 1, again and again',
    steps,
    expect: { onset: 2, detectBy: 21 },
    note: 'a monotonic paging sweep over one file restarted (DESIGN §7): period 10, every page unchanged. Two full sweeps end at step 21',
  });
}

{
  const res = { articles: [{ id: 'KB-118', title: 'Change the billing email on an invoice' }] };
  const queries = [
    'how do I change the billing email on an invoice',
    'How do I change the billing email on an invoice?',
    'how do I change the billing email on an invoice ',
    'How do I change the Billing Email on an invoice',
    'how do I  change the billing email on an invoice?',
    'HOW do I change the billing email on an invoice',
    'how do I change the billing email on an invoice',
    'How do I change the billing email on an Invoice?',
    'how do i change the billing email on an invoice',
    'How do I change the billing email on an invoice?',
  ];
  const steps: Step[] = [ok('get_ticket', { ticket_id: 'T-61873' }, { subject: 'Wrong email on invoice', body: 'Invoices go to my old address, please change it to finance@acme.example' })];
  for (const q of queries) steps.push(ok('search_help_center', { query: q }, res));
  add({
    id: 'l-cosmetic-requery',
    label: 'loop',
    title: 'support agent re-asks the help-center search with only case, spacing and punctuation changes',
    steps,
    expect: { onset: 2, detectBy: 5 },
    note: 'near-duplicate calls (case, whitespace, a trailing ?) with the same result every time: drift without change. One step of slack over the exact bar',
  });
}

{
  const base = 1000000;
  const steps: Step[] = [
    ok('get_ticket', { ticket_id: 'T-61990' }, { subject: 'Where is my parcel?', body: 'Ordered a week ago, no tracking email.' }),
    ok('lookup_customer', { email: 'h.nakamura@example.jp' }, { customer_id: 'C-4410', orders: ['SO-90233'] }),
    ok('get_order', { order_id: 'SO-90233' }, { id: 'SO-90233', status: 'label_created', carrier: 'UPS', tracking: null }),
  ];
  for (let i = 0; i < 10; i++) {
    steps.push(empty('track_shipment', { carrier: 'UPS', tracking_number: `1Z999AA1${base + 234 + i * 7}` }, { found: false, message: 'No tracking information available for this number.' }));
  }
  add({
    id: 'l-made-up-tracking-numbers',
    label: 'loop',
    title: 'support agent invents UPS tracking numbers one after another; every lookup finds nothing',
    steps,
    expect: { onset: 4, detectBy: 10 },
    note: 'the order has no tracking number (tracking: null), so every number is made up; exact fingerprints never repeat, only the empty outcome does (as the shared S2: seven empties)',
  });
}

{
  const variants: Array<[string, string]> = [
    ['cp build/lgctl /usr/local/bin/lgctl', "cp: cannot create regular file '/usr/local/bin/lgctl': Permission denied"],
    ['mv build/lgctl /usr/local/bin/', "mv: cannot move 'build/lgctl' to '/usr/local/bin/lgctl': Permission denied"],
    ['install -m 0755 build/lgctl /usr/local/bin/lgctl', "install: cannot create regular file '/usr/local/bin/lgctl': Permission denied"],
    ['ln -sf "$PWD/build/lgctl" /usr/local/bin/lgctl', "ln: failed to create symbolic link '/usr/local/bin/lgctl': Permission denied"],
    ['cat build/lgctl > /usr/local/bin/lgctl', 'bash: /usr/local/bin/lgctl: Permission denied'],
    ['cp -f build/lgctl /usr/local/bin/', "cp: cannot create regular file '/usr/local/bin/lgctl': Permission denied"],
    ['rsync -a build/lgctl /usr/local/bin/', 'rsync: [receiver] mkstemp "/usr/local/bin/.lgctl.Xr2Lq0" failed: Permission denied (13)'],
    ['tee /usr/local/bin/lgctl < build/lgctl > /dev/null', 'tee: /usr/local/bin/lgctl: Permission denied'],
    ['chmod 0777 /usr/local/bin', "chmod: changing permissions of '/usr/local/bin': Operation not permitted"],
    ['cp build/lgctl /usr/local/bin/lgctl', "cp: cannot create regular file '/usr/local/bin/lgctl': Permission denied"],
  ];
  const steps: Step[] = [ok('shell', { cmd: 'make build' }, { exit_code: 0, stdout: 'go build -o build/lgctl ./cmd/lgctl' })];
  for (const [cmd, err] of variants) steps.push(fail('shell', { cmd }, err));
  add({
    id: 'l-permission-denied-variants',
    label: 'loop',
    title: 'coding agent tries ten ways to copy a binary into /usr/local/bin; every one is refused',
    steps,
    expect: { onset: 2, detectBy: 7 },
    note: 'semantically identical failures with varying arguments (DESIGN §7): the messages are what cp, mv, install, ln, bash, rsync and tee really print, so they share "Permission denied" but not their text. detectBy leaves room for five attempts',
  });
}

{
  const err = "EACCES: permission denied, open '/etc/nginx/sites-available/shop.conf'";
  const confs = [
    'server {\n  listen 80;\n  server_name shop.example.com;\n  location / { proxy_pass http://127.0.0.1:3000; }\n}',
    'server {\n  listen 80;\n  server_name shop.example.com www.shop.example.com;\n  location / { proxy_pass http://127.0.0.1:3000; }\n}',
    'server {\n  listen 80;\n  server_name shop.example.com;\n  location / {\n    proxy_pass http://127.0.0.1:3000;\n    proxy_set_header Host $host;\n  }\n}',
    'server {\n  listen 80 default_server;\n  server_name shop.example.com;\n  location / { proxy_pass http://localhost:3000; }\n}',
    'server {\n    listen 80;\n    server_name shop.example.com;\n    location / { proxy_pass http://127.0.0.1:3000/; }\n}',
    'upstream shop { server 127.0.0.1:3000; }\nserver {\n  listen 80;\n  server_name shop.example.com;\n  location / { proxy_pass http://shop; }\n}',
    'server {\n  listen 80;\n  server_name shop.example.com;\n  location / { proxy_pass http://127.0.0.1:3000; proxy_http_version 1.1; }\n}',
    'server {\n  listen 80;\n  server_name shop.example.com;\n  root /var/www/shop;\n  location / { try_files $uri @app; }\n  location @app { proxy_pass http://127.0.0.1:3000; }\n}',
  ];
  const steps: Step[] = [ok('read_file', { path: '/etc/nginx/sites-available/default' }, { content: 'server {\n  listen 80 default_server;\n  root /var/www/html;\n}' })];
  for (const c of confs) steps.push(fail('write_file', { path: '/etc/nginx/sites-available/shop.conf', content: c }, err));
  add({
    id: 'l-eacces-rewrites',
    label: 'loop',
    title: 'ops agent keeps rewriting an nginx config with small changes; every write fails with the same EACCES',
    steps,
    expect: { onset: 2, detectBy: 7 },
    note: 'same error, different arguments each time: the content changes, the failure is word for word the same',
  });
}

{
  const guesses = ['sales', 'sales_2026', 'orders_2026', 'fact_sales', 'sales_fact', 'revenue', 'daily_revenue', 'sales_daily', 'transactions'];
  const steps: Step[] = [
    ok('run_sql', { sql: "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' LIMIT 5" }, { rows: [{ table_name: 'customers' }, { table_name: 'order_items' }, { table_name: 'orders' }, { table_name: 'products' }, { table_name: 'refunds' }] }),
  ];
  for (const g of guesses) {
    steps.push(fail('run_sql', { sql: `SELECT date_trunc('month', created_at) AS m, sum(amount) FROM ${g} GROUP BY 1 ORDER BY 1` }, `ERROR:  relation "${g}" does not exist\nLINE 1: ...ate_trunc('month', created_at) AS m, sum(amount) FROM ${g} GROUP...`));
  }
  add({
    id: 'l-sql-made-up-tables',
    label: 'loop',
    title: 'data agent guesses nine table names that do not exist instead of reading the table list it already has',
    steps,
    expect: { onset: 2, detectBy: 7 },
    note: 'made-up identifiers failing the same way: each error names the guessed table, so the messages never match word for word. The error-side twin of S2',
  });
}

{
  const steps: Step[] = [
    ok('git', { args: 'push origin fix/flaky-checkout-test' }, { stdout: 'To github.example.com:acme/shop.git\n * [new branch] fix/flaky-checkout-test -> fix/flaky-checkout-test' }),
  ];
  for (let i = 0; i < 9; i++) {
    const id = 1880412 + i * 3;
    steps.push(
      pending('trigger_pipeline', { project: 'acme/shop', ref: 'fix/flaky-checkout-test' }, { id, status: 'pending', ref: 'fix/flaky-checkout-test', created_at: iso(BASE, i * 8000), web_url: `https://ci.example.com/acme/shop/-/pipelines/${id}` }, { t: 5000 + i * 8000 }),
    );
  }
  add({
    id: 'l-ci-resubmit-pending',
    label: 'loop',
    title: 'coding agent triggers a new CI pipeline every few seconds instead of waiting for the first',
    steps,
    expect: { onset: 2, detectBy: 5 },
    note: 'pending results re-submitted: each answer differs only by a fresh pipeline id, its URL and a timestamp. As the shared S3',
  });
}

{
  const body = 'Hi Daniel, thanks for your patience. Your replacement card has been dispatched and should arrive within 5 working days.';
  const steps: Step[] = [
    ok('get_ticket', { ticket_id: 'T-62004' }, { subject: 'Card not arrived', body: 'It has been 10 days.' }),
    ok('get_card_order', { customer_id: 'C-9013' }, { status: 'dispatched', dispatched: '2026-11-27' }),
  ];
  for (let i = 0; i < 12; i++) {
    steps.push(ok('send_message', { ticket_id: 'T-62004', body }, { message_id: `msg_${hex(16)}`, sent_at: iso(BASE, i * 3100), delivered: true }));
  }
  add({
    id: 'l-duplicate-customer-replies',
    label: 'loop',
    title: 'support agent sends the customer the same reply twelve times',
    steps,
    expect: { onset: 3, detectBy: 5, breakBy: 14 },
    note: 'identical sends whose results differ only by message_id and sent_at (volatile fields, DESIGN §7); the customer receives twelve copies',
  });
}

{
  const steps: Step[] = [
    ok('get_invoice', { invoice_id: 'in_1QZ8' }, { id: 'in_1QZ8', amount_due: 24900, currency: 'eur', status: 'open' }),
  ];
  for (let i = 0; i < 26; i++) {
    steps.push(fail('http_request', { method: 'POST', url: 'https://payments.example.com/v1/charges', body: { invoice: 'in_1QZ8', amount: 24900, currency: 'eur' } }, 'HTTP 200 with error body: {"status":503,"error":"upstream_unavailable","message":"card network unavailable, try later"}', { t: 1000 + i * 1500 }));
  }
  add({
    id: 'l-inband-503-forever',
    label: 'loop',
    title: 'billing agent retries a charge 26 times, 1.5 s apart; the API answers HTTP 200 with a body saying 503 every time',
    steps,
    expect: { onset: 2, detectBy: 13, breakBy: 23 },
    note: 'an in-band failure (DESIGN §7). The README makes status the ground-truth outcome class, and a body saying 503 is a failure, so the steps are status "error" (the result body is quoted in the error). Retries without backoff: normal up to the length of a backoff (the shared N5 and n-backoff-until-db-up have 6-7), a loop well before 12; 26 must be stopped',
  });
}

{
  const tail = { cmd: 'tail -n 15 logs/worker.log' };
  const grow = [
    '[09:12:01] worker started, pid 77120\n[09:12:01] consuming queue "thumbnails"',
    '[09:12:01] worker started, pid 77120\n[09:12:01] consuming queue "thumbnails"\n[09:12:04] job 5512 done (3 images)',
    '[09:12:01] worker started, pid 77120\n[09:12:01] consuming queue "thumbnails"\n[09:12:04] job 5512 done (3 images)\n[09:12:09] job 5513 done (12 images)',
  ];
  const dead = `${grow[2]}\n[09:12:11] job 5514 started (2400 images)\n[09:12:40] FATAL: JavaScript heap out of memory\n[09:12:40] worker exited with code 134`;
  const steps: Step[] = [ok('shell', { cmd: 'nohup node dist/worker.js >> logs/worker.log 2>&1 &' }, { exit_code: 0, stdout: '[1] 77120' })];
  for (const g of grow) steps.push(ok('shell', tail, { exit_code: 0, stdout: g }));
  for (let i = 0; i < 15; i++) steps.push(ok('shell', tail, { exit_code: 0, stdout: dead }));
  add({
    id: 'l-tail-dead-worker-log',
    label: 'loop',
    title: 'ops agent keeps tailing the log of a worker that already crashed; the log never changes again',
    steps,
    expect: { onset: 5, detectBy: 7, breakBy: 16 },
    note: 'contrast n-growing-build-log: the first three reads show growth (progress), then the process is dead and 15 reads return the same text. Onset at the first read of the final state',
  });
}

{
  const prompt = 'Setting up tzdata (2024a-0ubuntu0.22.04) ...\nConfiguring tzdata\n------------------\n\nPlease select the geographic area in which you live.\n\n  1. Africa  2. America  3. Antarctica  4. Australia  5. Arctic  6. Asia  7. Atlantic  8. Europe  9. Indian  10. Pacific  11. US  12. Etc\nGeographic area: ';
  const steps: Step[] = [
    pending('execute_bash', { command: 'apt-get install -y tzdata python3-venv', timeout: 60 }, { output: 'Reading package lists... Done\nBuilding dependency tree... Done\nThe following NEW packages will be installed:\n  python3-venv tzdata\n…\nUnpacking tzdata (2024a-0ubuntu0.22.04) ...', exit_code: -1, note: '[The command is still running.]' }),
    pending('execute_bash', { command: '', is_input: true }, { output: prompt, exit_code: -1, note: '[The command is still running.]' }),
  ];
  for (let i = 0; i < 14; i++) steps.push(pending('execute_bash', { command: '', is_input: true }, { output: '', exit_code: -1, note: '[The command has no new output after 30 seconds. It may be waiting for input.]' }));
  add({
    id: 'l-continue-stuck-prompt',
    label: 'loop',
    title: 'coding agent keeps sending empty input to a command blocked on an interactive tzdata prompt',
    steps,
    expect: { onset: 3, detectBy: 6, breakBy: 14 },
    note: 'contrast n-continue-long-install: the same continuation call, but the command waits for an answer the agent never types and every reply says "no new output"',
  });
}

{
  const steps: Step[] = [];
  const cursors = ['', 'eyJwIjoyfQ', 'eyJwIjozfQ', 'eyJwIjo0fQ'];
  cursors.forEach((c, i) => {
    const next = cursors[i + 1] ?? 'eyJwIjo0fQ';
    steps.push(ok('list_tickets', c === '' ? { status: 'open', limit: 50 } : { status: 'open', limit: 50, cursor: c }, { tickets: Array.from({ length: 3 }, (_, k) => ({ id: `T-${70000 + i * 50 + k}`, subject: `ticket ${i * 50 + k}` })), returned: 50, next_cursor: next }));
  });
  const stuck = steps[steps.length - 1]!;
  for (let i = 0; i < 12; i++) steps.push(stuck);
  add({
    id: 'l-cursor-never-advances',
    label: 'loop',
    title: 'data agent follows a next_cursor that points back at the page it just read (an API bug), forever',
    steps,
    expect: { onset: 4, detectBy: 6, breakBy: 15 },
    note: 'pages 1-3 are progress; from step 4 the API returns the cursor of the same page and the agent asks for it again and again: identical call, identical result',
  });
}

{
  const cmd = { cmd: 'pytest tests/test_checkout.py -q' };
  const failing = () => ({ exit_code: 1, stdout: `F.......\nFAILED tests/test_checkout.py::test_applies_coupon_once - AssertionError: assert Decimal('80.00') == Decimal('90.00')\n1 failed, 7 passed in ${secs(1.2, 1.9)}s` });
  const steps: Step[] = [
    ok('run_tests', cmd, failing()),
    ok('read_file', { path: 'src/checkout/coupons.py' }, { content: 'def apply(cart, coupon):\n    for line in cart.lines:\n        line.price -= coupon.amount\n' }),
    ok('edit_file', { path: 'src/checkout/coupons.py', old: 'for line in cart.lines:\n        line.price -= coupon.amount', new: 'cart.discount += coupon.amount' }, { ok: true, replacements: 1 }),
  ];
  for (let i = 0; i < 12; i++) steps.push(ok('run_tests', cmd, failing()));
  add({
    id: 'l-rerun-failing-test',
    label: 'loop',
    title: 'coding agent re-runs the same failing test 12 times without changing anything; only the timing line differs',
    steps,
    expect: { onset: 4, detectBy: 6, breakBy: 15 },
    note: 'identical call; the results differ only in the duration pytest prints ("in 1.43s"), a volatile field (DESIGN §7), so this is same call same result',
  });
}

// ---------------------------------------------------------------- output --

const out = fileURLToPath(new URL('./trajectories.jsonl', import.meta.url));
const ids = new Set<string>();
for (const c of cases) {
  if (ids.has(c.id)) throw new Error(`duplicate id ${c.id}`);
  ids.add(c.id);
  const n = c.steps.length;
  for (const k of ['onset', 'detectBy', 'breakBy'] as const) {
    const v = c.expect[k];
    if (v !== undefined && (v < 1 || v > n)) throw new Error(`${c.id}: expect.${k}=${v} outside 1..${n}`);
  }
  if (c.label === 'loop' && (c.expect.onset === undefined || c.expect.detectBy === undefined)) throw new Error(`${c.id}: loop without onset/detectBy`);
}
writeFileSync(out, cases.map((c) => JSON.stringify(c)).join('\n') + '\n');
const loops = cases.filter((c) => c.label === 'loop').length;
process.stdout.write(`wrote ${cases.length} trajectories (${cases.length - loops} normal, ${loops} loop) to ${out}\n`);
