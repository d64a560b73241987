import { describe, expect, it } from 'vitest';
import { canonicalize, fingerprintArgs, hashText, textSketch } from '../../../src/fingerprint/index.js';
import { sketchSimilarity } from '../../../src/fingerprint/sketch.js';
import { ordersTable } from '../history/drifting-table.js';
import { feed, times, type Call } from './feed.js';

describe('no-progress', () => {
  it('warns on the second repeat of the same call with the same result', () => {
    const r = feed(times(8, { tool: 'search', args: 'q', result: 'none' }));
    expect(r.levels).toEqual([undefined, undefined, 'warning', 'warning', 'critical', 'critical', 'critical', 'break']);
    expect(r.detectors[2]).toBe('no-progress');
  });

  it('counts nothing when the result changes (a poll whose state moves)', () => {
    const states = ['INIT', 'MIGRATING', 'MIGRATING', 'VERIFYING', 'READY'];
    expect(feed(states.map((s) => ({ tool: 'health', args: 'u', result: s }))).firstWarning).toBeNull();
  });

  it('leaves failures to retry-storm, whose tiers are far higher', () => {
    const r = feed(times(7, { tool: 'get', args: 'u', result: '503', outcome: 'error' }));
    expect(r.firstWarning).toBeNull();
    const storm = feed(times(8, { tool: 'get', args: 'u', result: '503', outcome: 'error' }));
    expect(storm.levels[7]).toBe('warning');
    expect(storm.detectors[7]).toBe('retry-storm');
  });
});

describe('cycles', () => {
  it('flags A-B-A-B with unchanged results as ping-pong after two periods', () => {
    const r = feed(times(4, (i) => (i % 2 ? { tool: 'open', args: 'p', result: 'page' } : { tool: 'search', args: 'q', result: 'hit' })));
    expect(r.levels).toEqual([undefined, undefined, undefined, 'warning']);
    expect(r.detectors[3]).toBe('ping-pong');
  });

  it('does not flag alternation whose results move (edit, test, edit, test converging)', () => {
    const r = feed(times(10, (i) => (i % 2 ? { tool: 'test', args: 'npm test', result: `${5 - i} failed` } : { tool: 'edit', args: `change ${i}`, result: 'ok' })));
    expect(r.firstWarning).toBeNull();
  });

  it('flags a period-3 write/undo cycle at the end of its second period', () => {
    const cycle = [
      { tool: 'read', args: 's', result: '' },
      { tool: 'write', args: 'X', result: '1' },
      { tool: 'write', args: '', result: '0' },
    ];
    const r = feed([...cycle, ...cycle, ...cycle]);
    expect(r.firstWarning).toBe(6);
    expect(r.detectors[5]).toBe('cycle');
  });

  it('catches a paging sweep longer than half the window when it restarts', () => {
    const sweep = times(20, (i) => ({ tool: 'read_page', args: `page ${i}`, result: `text ${i}` }));
    const r = feed([...sweep, ...sweep]);
    // Four pages read again, each as before, are a replay (a warning); the whole sweep read again is the cycle.
    expect(r.levels.slice(0, 23).every((l) => l === undefined)).toBe(true);
    expect(r.levels[23]).toBe('warning');
    expect(r.detectors[23]).toBe('cycle');
    expect(r.levels[39]).toBe('warning');
    expect(r.detectors[39]).toBe('cycle');
  });

  it('sees a cycle close on the failed call that ends its period (re-read a stale slot, book it, refused)', () => {
    const calls = times(4, (i) =>
      i % 2 ? { tool: 'book', args: 'slot 10:00', result: '409 conflict', outcome: 'error' as const } : { tool: 'get_slot', args: 'mon', result: '10:00 free' },
    );
    const r = feed(calls);
    expect(r.levels[3]).toBe('warning');
    expect(r.detectors[3]).toBe('ping-pong');
  });

  it('reads a retry with a pause in each period as waiting (apply, locked, sleep 90, apply)', () => {
    const r = feed([]);
    const levels: Array<string | undefined> = [];
    let t = 0;
    for (let i = 0; i < 8; i++) {
      const sleep = i % 2 === 1;
      const d = r.engine.record('run', {
        tool: sleep ? 'sleep' : 'apply',
        argsHash: (sleep ? '1' : '2').repeat(16),
        normArgsHash: (sleep ? '1' : '2').repeat(16),
        resultHash: (sleep ? '3' : '4').repeat(16),
        outcome: sleep ? 'ok' : 'error',
        blocked: false,
        startMs: t,
        endMs: t + (sleep ? 90_000 : 2_000),
      });
      levels.push(d.level);
      t += sleep ? 91_000 : 3_000;
    }
    expect(levels.every((l) => l === undefined)).toBe(true);
  });

  it('leaves a failing call alternating with a check that finds nothing to the retry tiers', () => {
    const calls = times(8, (i) =>
      i % 2 ? { tool: 'find_booking', args: 'ref R-1', result: '', outcome: 'empty' as const } : { tool: 'book', args: 'room 1', result: 'timeout', outcome: 'error' as const },
    );
    expect(feed(calls.slice(0, 4)).firstWarning).toBeNull();
    expect(feed(calls).detectors).not.toContain('ping-pong');
    // Two empty searches alternating still cycle: nothing failed, nothing was found.
    const empties = times(4, (i) => ({ tool: 'search', args: i % 2 ? 'a' : 'b', result: '', outcome: 'empty' as const }));
    expect(feed(empties).detectors[3]).toBe('ping-pong');
  });

  it('does not call a block of identical calls a cycle', () => {
    const r = feed(times(4, { tool: 'a', args: 'x', result: 'y' }), { thresholds: { 'no-progress': { warning: 10, critical: 0, break: 0 } } });
    expect(r.firstWarning).toBeNull();
  });

  describe('a stretch replayed after a return', () => {
    const page = (args: string, result: string): Call => ({ tool: 'open', args, result, informative: true });
    const scroll = (result: string): Call => ({ tool: 'scroll', args: 'down', result, informative: true });
    const before: Call[] = [
      { tool: 'search', args: 'q1', result: 'results 1', informative: true },
      page('Credits', 'credits, top'),
      scroll('credits, part 2'),
      scroll('credits, part 3'),
      { tool: 'search', args: 'q2', result: 'results 2', informative: true },
      page('Other', 'other page'),
    ];

    it('flags a run that comes back by another link and takes the same steps, getting the same answers', () => {
      const r = feed([...before, page('Credits link', 'credits, top'), scroll('credits, part 2'), scroll('credits, part 3')]);
      expect(r.firstWarning).toBe(9);
      expect(r.detectors[8]).toBe('cycle');
      expect(r.levels[8]).toBe('warning');
    });

    it('leaves the same steps alone when their answers change (the page was updated meanwhile)', () => {
      const r = feed([...before, page('Credits link', 'credits, top'), scroll('credits, part 2, new'), scroll('credits, part 3, new')]);
      expect(r.firstWarning).toBeNull();
    });

    it('leaves a sequence re-run with no return before it alone (a diff and its print, again after a new search)', () => {
      const again = { tool: 'search', args: 'q3', result: 'results 3', informative: true };
      const r = feed([...before, again, page('Credits', 'credits, top'), scroll('credits, part 2')]);
      expect(r.firstWarning).toBeNull();
    });
  });

  describe('a long stretch replayed with no marked return', () => {
    const sh = (args: string, result: string): Call => ({ tool: 'bash', args, result, informative: result.length > 0 });
    // Restore the file, find the class, view it, insert the snippet: then other work, then the same four again.
    const round: Call[] = [
      sh('git checkout python.py', 'Updated 1 path from the index'),
      sh('grep -n "class PyTypedField" python.py', '342:class PyTypedField(PyXrefMixin, TypedField):'),
      sh("sed -n '342,355p' python.py", 'class PyTypedField(PyXrefMixin, TypedField):\n    def make_xref(self, rolename, domain, target)'),
      sh("sed -i '351r snippet.py' python.py", ''),
    ];
    const between: Call[] = [
      sh("sed -n '340,380p' python.py", 'class PyTypedField … def make_xrefs(self) … return result'),
      sh('pytest tests/test_domain_py.py', '1 failed, 42 passed'),
      sh("sed -i '/def make_xrefs/,/return result/d' python.py", ''),
    ];

    it('warns (cycle) once four steps are retaken, call for call and answer for answer', () => {
      const r = feed([...round, ...between, ...round]);
      expect(r.firstWarning).toBe(round.length * 2 + between.length);
      expect(r.detectors[r.firstWarning! - 1]).toBe('cycle');
      expect(r.levels[r.firstWarning! - 1]).toBe('warning');
    });

    it('leaves three retaken steps alone (a patch script, its check and a revert, between two different patches)', () => {
      expect(feed([...round, ...between, ...round.slice(0, 3)]).firstWarning).toBeNull();
    });

    it('leaves the four steps alone when one of them is answered otherwise (the restore changed what the view shows)', () => {
      const moved = round.map((c, i) => (i === 2 ? { ...c, result: 'class PyTypedField(PyXrefMixin, TypedField):\n    def make_xrefs(self)' } : c));
      expect(feed([...round, ...between, ...moved]).firstWarning).toBeNull();
    });
  });

  describe('a step asked again verbatim and answered in other words', () => {
    const words = (from: number, n: number) => times(n, (k) => `w${((from + k) * 7919) % 100003}`).join(' ');
    // A model's verdict on the same 15 search hits: the same finding, restated in a new paragraph each time.
    const verdict = (reading: number) => `${words(1, 40)} ${words(1000 + reading * 100, 60)}`;
    const search: Call = { tool: 'search_code', args: 'feed.add_item()', text: `15 spans: ${words(5000, 70)}`, informative: true };
    const judge = (reading: number, args = 'Feed.get_feed'): Call => ({ tool: 'identify_code', args, text: verdict(reading), informative: true });
    const similarity = (a: string, b: string) => sketchSimilarity(textSketch(canonicalize(a))!, textSketch(canonicalize(b))!);

    // Five restatements: no two near (J < 0.45, so each is a new answer), each within drift (J ≥ 0.25) of the one two later.
    const readings = [0, 1, 2, 4, 5];

    it('measures such restatements between the drift bar and the near bar', () => {
      for (const a of readings) for (const b of readings) if (a < b) expect(similarity(verdict(a), verdict(b))).toBeLessThan(0.45);
      for (let i = 0; i + 2 < readings.length; i++) expect(similarity(verdict(readings[i]!), verdict(readings[i + 2]!))).toBeGreaterThanOrEqual(0.25);
      expect(similarity(verdict(0), verdict(1))).toBeGreaterThanOrEqual(0.25);
    });

    it('counts it as the same step of a cycle: the search and its restated verdict went round', () => {
      const r = feed([search, judge(0), search, judge(1), search]);
      expect(r.firstWarning).toBe(4);
      expect(r.detectors[3]).toBe('ping-pong');
    });

    it('leaves verdicts on other spans alone, and answers that moved past drift', () => {
      expect(feed([search, judge(0, 'Feed'), search, judge(1, 'Feed.get_feed'), search]).firstWarning).toBeNull();
      const moved = (i: number): Call => ({ tool: 'identify_code', args: 'Feed.get_feed', text: words(20_000 + i * 100, 80), informative: true });
      expect(feed([search, moved(0), search, moved(1), search]).firstWarning).toBeNull();
    });

    it('is no cycle when the call only follows itself: back to back, the answer numbers alone decide', () => {
      expect(feed(readings.map((i) => judge(i))).firstWarning).toBeNull();
    });
  });

  it('ignores cycles made only of failures (a retry across mirrors)', () => {
    const r = feed(times(8, (i) => ({ tool: 'get', args: `mirror ${i % 2}`, result: '503', outcome: 'error' })));
    expect(r.firstWarning).toBeNull();
  });
});

describe('semantic-repeat', () => {
  it('flags near-duplicate calls whose normalised arguments and results match', () => {
    const r = feed(
      times(4, (i) =>
        i % 2 ? { tool: 'open', args: 'u', result: 'page' } : { tool: 'search', args: `cheap flights ${'cheap '.repeat(i)}`, norm: 'cheap flights', result: 'hit' },
      ),
    );
    expect(r.levels[3]).toBe('warning');
    expect(r.detectors[3]).toBe('semantic-repeat');
  });
});

describe('near calls resent', () => {
  // One computation, its code cell tidied between runs (a conditional written two ways), printing the same thing.
  const cell = (tidy: boolean) => ({
    language: 'python',
    code: [
      '# Work out the check digit of the padded identifier, weighting each digit by its position',
      'identifier = "8200000".zfill(9)',
      'weighted_sum = sum(int(digit) * (position + 1) for position, digit in enumerate(identifier))',
      'remainder = weighted_sum % 11',
      tidy ? "check_digit = 'X' if remainder == 10 else str(remainder)" : "if remainder == 10:\n    check_digit = 'X'\nelse:\n    check_digit = str(remainder)",
      'print(check_digit)',
    ].join('\n'),
  });
  const run = (tidy: boolean) => ({ tool: 'execute_code', argsValue: cell(tidy), result: 'exitcode: 0 (execution succeeded) Code output: X' });

  it('reads a cell re-run with cosmetic edits as one call repeated, one call later than equal ones', () => {
    const r = feed([run(true), run(true), run(false), run(false), run(false)]);
    expect(r.firstWarning).toBe(4);
    expect(r.detectors[3]).toBe('semantic-repeat');
  });

  it('leaves a sweep over a parameter alone: near call after call with one answer, but no value sent twice', () => {
    const query = (day: number) => ({
      tool: 'run_query',
      argsValue: { sql: `SELECT COUNT(*) - COUNT(DISTINCT event_id) AS duplicated_events FROM raw.events WHERE event_date = '2026-11-${10 + day}'` },
      result: '{"rows":[{"duplicated_events":0}]}',
    });
    expect(feed(times(10, query)).firstWarning).toBeNull();
  });
});

describe('repeat', () => {
  it('flags a call made again and again between other steps, its results coming back', () => {
    // The steps in between report nothing new (the same acknowledgement), so nothing resets the count.
    const calls = times(21, (i) => (i % 3 === 0 ? { tool: 'status', args: 's', result: i % 2 ? 'A' : 'B' } : { tool: 'work', args: `step ${i}`, result: 'queued' }));
    const r = feed(calls);
    expect(r.detectors.filter(Boolean)).toContain('repeat');
  });

  it('reads a check after each new command acknowledged alike as verification (update chunk 1, check, chunk 2, check)', () => {
    const calls = [
      { tool: 'sql', args: 'SELECT count(*) WHERE x IS NULL', result: '568211' },
      ...times(24, (i) =>
        i % 2
          ? { tool: 'replica_lag', args: 'replica-1', result: i === 7 ? '2' : '0' }
          : { tool: 'sql', args: `UPDATE chunk ${i / 2}`, result: 'UPDATE 50000' },
      ),
    ];
    expect(feed(calls).firstWarning).toBeNull();
  });

  it('reads a check re-run after each rewrite as verification, when its first run failed before any rewrite', () => {
    const check = (outcome: 'ok' | 'error') => ({ tool: 'bash', args: 'python3 repro.py', result: outcome === 'ok' ? 'usage: cmd [-h]' : 'Traceback', outcome });
    const calls = [check('error'), ...times(10, (i) => (i % 2 ? check('ok') : { tool: 'bash', args: `cat > fix${i}.py`, result: `rewrote the formatter, take ${i}` }))];
    expect(feed(calls).firstWarning).toBeNull();
    // The same checks with only notes to itself between them are no progress.
    const idle = [check('error'), ...times(10, (i) => (i % 2 ? check('ok') : { tool: 'think', args: `idea ${i}`, result: 'noted' }))];
    expect(feed(idle).firstWarning).not.toBeNull();
  });

  it('counts nothing across progress: a commit between two clean statuses is new work', () => {
    const calls = times(16, (i) => (i % 2 ? { tool: 'git_status', args: '', result: 'clean' } : { tool: 'git_commit', args: `change ${i}`, result: `sha ${i}` }));
    expect(feed(calls).firstWarning).toBeNull();
  });

  it('runs one occurrence ahead when a new try between the checks was told what an earlier try was told', () => {
    const check = { tool: 'bash', args: 'npx jest discount.test.ts', result: 'FAIL applies discount after tax', informative: true };
    const commit = (i: number) => ({ tool: 'bash', args: `git commit -am 'fix ${i}'`, result: 'nothing to commit, working tree clean', informative: true });
    const echoed = feed(times(9, (i) => (i % 2 ? commit(i) : check)));
    // The 4th check: the 2nd commit command met the 1st one's answer, so the round went nowhere.
    expect(echoed.firstWarning).toBe(7);
    expect(echoed.detectors[6]).toBe('repeat');
    // Each try answered anew (a sha) is new work: a check after each is verification.
    expect(feed(times(9, (i) => (i % 2 ? { ...commit(i), result: `sha ${i}` } : check))).firstWarning).toBeNull();
    // A try answered as before but saying nothing specific (a bare "ok") is no echo: the count is not ahead.
    expect(feed(times(9, (i) => (i % 2 ? { ...commit(i), result: 'ok', informative: false } : check))).firstWarning).toBeNull();
  });

  it('reads one note repeated before each new place as a habit when most rounds found something new', () => {
    // The same templated note before each receptacle; one round goes back to a place already seen, the rest find new ones.
    const go = (place: string) => ({ tool: 'go', args: place, result: `On the ${place}, you see the ${place} things.` });
    const note = { tool: 'think', args: 'Now I find a mug. Next, I need to take it.', result: 'OK.' };
    const places = ['drawer 2', 'desk 2', 'drawer 4', 'drawer 5', 'drawer 6', 'shelf 1', 'shelf 2'];
    const calls = [{ tool: 'think', args: 'First I need to find a mug.', result: 'OK.' }, go('desk 1'), go('desk 2'), ...places.flatMap((place) => [note, go(place)])];
    expect(feed(calls).firstWarning).toBeNull();
    // A check whose own answer comes back is a loop after one round that went nowhere, however many rounds found
    // something new: its answer says the work did not change what it checks.
    const build = { tool: 'bash', args: 'go build ./...', result: 'undefined: middleware.WithTenant' };
    const withCheck = [go('desk 1'), go('desk 2'), ...places.flatMap((place) => [build, go(place)]), build];
    expect(feed(withCheck).detectors.filter(Boolean)).toContain('repeat');
  });

  it('does not flag a repeated call whose results keep changing (reading a growing log)', () => {
    const calls = times(30, (i) => (i % 2 ? { tool: 'read_log', args: 'build.log', result: `lines ${i}` } : { tool: 'wait', args: `${i}`, result: 'ok' }));
    expect(feed(calls).firstWarning).toBeNull();
  });
});

describe('empty-streak', () => {
  it('flags one tool finding nothing with fresh arguments, other tools in between not breaking it', () => {
    const guess = (i: number) => ({ tool: 'query_order', args: `A-${i}`, result: 'not_found', outcome: 'empty' as const });
    const calls = [{ tool: 'lookup', args: 'mail', result: 'C-77' }, ...times(3, guess), { tool: 'note', args: 'still looking', result: 'ok' }, ...times(5, (i) => guess(i + 3))];
    const r = feed(calls);
    // Six empty answers is the size of a sweep over a short list; the seventh guess warns.
    expect(r.firstWarning).toBe(9);
    expect(r.detectors[8]).toBe('empty-streak');
  });

  it('leaves a sweep over a listing alone: each lookup takes the next item the run was shown', () => {
    const lookup = (i: number, listed: boolean) => ({ tool: 'ledger_find', args: `DEP-1182${i}`, result: 'none', outcome: 'empty' as const, shape: 'DEP-0', takesListedItem: listed });
    const list = { tool: 'bank_statement', args: 'week', result: 'DEP-11820 … DEP-11829', informative: true };
    // The first lookup changes nothing yet (no earlier lookup to swap an item into), the rest each take the next deposit.
    expect(feed([list, ...times(9, (i) => lookup(i, i > 0))]).firstWarning).toBeNull();
    // The same lookups with made-up references are guesses.
    expect(feed([list, ...times(9, (i) => lookup(i, false))]).firstWarning).toBe(8);
  });

  it('is reset by a call of the tool that finds something', () => {
    const calls = times(12, (i) => ({ tool: 'grep', args: `f${i}`, result: i % 4 === 3 ? 'match' : '', outcome: i % 4 === 3 ? ('ok' as const) : ('empty' as const) }));
    expect(feed(calls).firstWarning).toBeNull();
  });

  const ask = (tool: string, query: unknown, found = false) => ({
    tool,
    argsValue: query,
    result: found ? 'hits' : 'none',
    outcome: found ? ('ok' as const) : ('empty' as const),
    // The processor's digit-folded shape, which the same-shape streak reads.
    shape: found ? undefined : `${tool}:${JSON.stringify(query).replace(/[0-9]+/g, '0')}`,
  });

  it('flags the same question reworded finding nothing at the repeat tiers, across the tools of one search', () => {
    const calls = [
      ask('search', { entity: 'Pontotoc County, Oklahoma' }, true),
      ask('lookup', { keyword: 'CBS-affiliated station' }),
      ask('search', { entity: 'Pontotoc County, Oklahoma CBS-affiliated station' }),
      ask('search', { entity: 'Pontotoc County, Oklahoma CBS station' }),
      ask('search', { entity: 'Pontotoc County, Oklahoma CBS affiliate' }),
      ask('search', { entity: 'Pontotoc County, Oklahoma CBS-affiliated television station' }),
    ];
    const r = feed(calls);
    // The fourth ask of the same thing that found nothing warns (the repeat tiers: 4 / 6 / 9). "… CBS affiliate" is
    // still near the first search, which found the county: its streak starts after it, and the sixth call warns.
    expect(r.firstWarning).toBe(6);
    expect(r.detectors[5]).toBe('empty-streak');
    const classes = [
      ask('search_class', { class_name: 'LogNorm' }),
      ask('search_method_in_class', { class_name: 'LogNorm', method_name: 'inverse' }),
      ask('get_class_full_snippet', { class_name: 'LogNorm' }),
      ask('search_method_in_class', { class_name: 'Colorbar', method_name: 'draw_all' }, true),
      ask('search_method_in_class', { class_name: 'LogNorm', method_name: 'inverse' }),
    ];
    expect(feed(classes).firstWarning).toBe(5);
  });

  it('does not count asks about other things: other names, other words', () => {
    const files = times(9, (i) => ask('grep', { pattern: 'legacy_price_round', path: `app/routes/module_${String.fromCharCode(97 + i)}.py` }));
    expect(feed(files).firstWarning).toBeNull();
    const sections = ['Honors', 'Evening', 'Online', 'Weekend', 'Morning', 'Transfer'].map((s) => ask('find_section', { name: `Intro Biology ${s} Section` }));
    expect(feed(sections).firstWarning).toBeNull();
    const topics = ['tide tables', 'ferry timetable', 'harbour webcam', 'parking permits', 'museum hours'].map((q) => ask('search', { query: `Lisbon ${q}` }));
    expect(feed(topics).firstWarning).toBeNull();
  });

  it('is ended by a reworded ask that finds something', () => {
    const calls = [
      ask('search', { query: 'iPhone 14 news' }),
      ask('search', { query: 'latest news iPhone 14' }),
      ask('search', { query: 'iPhone 14 latest news' }),
      ask('news', { query: 'iPhone 14 news today' }, true),
      ask('search', { query: 'iPhone 14 news' }),
      ask('search', { query: 'iPhone 14 news headlines' }),
    ];
    expect(feed(calls).firstWarning).toBeNull();
    expect(feed(calls.filter((_, i) => i !== 3)).firstWarning).toBe(4);
  });

  describe('finding nothing ask after ask, one of them asked again', () => {
    const titles = ['"Wallace and Gromit"', '"Thrill-O-Matic"', '"Aardman Animations"', '"Creature Comforts"', '"Nick Park"', '"Chicken Run"', '"A Close Shave"'];

    it('counts the streak once the same words come back, of the same tool or another', () => {
      const searches = [ask('search', { entity: titles[0] }), ask('search', { entity: titles[1] }), ask('search', { entity: titles[0] }), ...titles.slice(2, 5).map((t) => ask('search', { entity: t }))];
      const r = feed(searches);
      // The asks after the first count at the repeat tiers: the fifth ask warns, its sixth call with the 4-only run before.
      expect(r.firstWarning).toBe(5);
      expect(r.detectors[4]).toBe('empty-streak');
      // A name searched and then looked up is the same words asked of another tool.
      const lookups = [ask('search', { entity: 'Ian Brennan' }), ...['Ian Brennan (writer)', 'Ian Brennan', 'Brad Falchuk', 'The Watcher (2022 TV series)'].map((k) => ask('lookup', { keyword: k }))];
      expect(feed(lookups).firstWarning).toBe(5);
    });

    it('leaves a sweep that never asks the same thing twice, however long it finds nothing', () => {
      expect(feed(titles.map((t) => ask('search', { entity: t }))).firstWarning).toBeNull();
      const regions = ['us-east', 'us-west', 'eu-west', 'eu-central', 'ap-south', 'ap-northeast', 'sa-east', 'ca-central'];
      expect(feed(regions.map((r) => ask('describe_volumes', { region: r, state: 'available' }))).firstWarning).toBeNull();
    });

    it('is ended by an ask that finds something', () => {
      const calls = [ask('search', { entity: titles[0] }), ask('search', { entity: titles[0] }), ask('search', { entity: titles[1] }), ask('search', { entity: 'Wallace and Gromit' }, true), ...titles.slice(2, 5).map((t) => ask('search', { entity: t }))];
      expect(feed(calls).firstWarning).toBeNull();
    });

    it('is waiting when every ask comes half a minute or more after the last', () => {
      const sent = { tool: 'send_message', args: 'question', result: 'sent' };
      const inboxes = ['support', 'billing', 'support', 'sales', 'legal', 'press', 'careers', 'partners'];
      const checks = inboxes.map((inbox, i) => ({ ...ask('check_inbox', { inbox, from: 'Dana Whitfield' }), startMs: (i + 1) * 600_000 }));
      expect(feed([sent, ...checks]).firstWarning).toBeNull();
      expect(feed([sent, ...checks.map((c, i) => ({ ...c, startMs: (i + 1) * 1000 }))]).firstWarning).toBe(6);
    });
  });
});

describe('same-error', () => {
  it('flags different attempts failing with the same error', () => {
    const r = feed(times(5, (i) => ({ tool: 'shell', args: `cmd ${i}`, result: 'permission denied', outcome: 'error' as const })));
    expect(r.levels[4]).toBe('warning');
    expect(r.detectors[4]).toBe('same-error');
  });

  it('does not count a failure naming the listed item it was asked about (a sweep: each volume attached elsewhere)', () => {
    const del = (i: number, listed: boolean) => ({ tool: 'shell', args: `delete vol-${i}`, result: 'VolumeInUse', outcome: 'error' as const, takesListedItem: listed });
    expect(feed(times(8, (i) => del(i, i > 0))).firstWarning).toBeNull();
    expect(feed(times(8, (i) => del(i, false))).firstWarning).toBe(5);
  });

  it('does not flag different failures', () => {
    expect(feed(times(6, (i) => ({ tool: 'get', args: `u${i}`, result: `HTTP ${400 + i}`, outcome: 'error' as const }))).firstWarning).toBeNull();
  });

  describe('across tools', () => {
    const note = { tool: 'think', args: 'note', result: 'OK.' };
    const invalid = (tool: string, args: string, failure: 'deterministic' | 'transient' = 'deterministic') =>
      ({ tool, args, result: 'Invalid action!', outcome: 'error' as const, failure });

    it('counts the variants of every tool when every action fails the same deterministic way, notes aside', () => {
      const calls = [note, invalid('click', 'a'), invalid('click', 'b'), note, invalid('search', 'c'), invalid('search', 'd'), note, invalid('exit', 'e')];
      const r = feed(calls);
      expect(r.firstWarning).toBe(8);
      expect(r.detectors[7]).toBe('same-error');
    });

    it('ends the streak at a call that told something new', () => {
      const calls = [invalid('click', 'a'), invalid('click', 'b'), { tool: 'search', args: 'c', result: 'three products' }, invalid('search', 'd'), invalid('exit', 'e'), invalid('exit', 'f')];
      expect(feed(calls).firstWarning).toBeNull();
    });

    it('leaves transient failures to each tool (an outage answers every tool alike)', () => {
      const calls = ['orders', 'stock', 'prices', 'users', 'invoices', 'refunds'].map((tool) => invalid(tool, 'q', 'transient'));
      expect(feed(calls).firstWarning).toBeNull();
    });
  });
});

describe('pending-resubmit', () => {
  it('flags a job re-submitted while pending, answers identical once volatile ids are masked', () => {
    const r = feed(times(3, { tool: 'submit', args: 'report', result: 'pending', outcome: 'pending' }));
    expect(r.levels[2]).toBe('warning');
    expect(r.detectors[2]).toBe('pending-resubmit');
  });

  it('does not flag a status poll whose progress moves', () => {
    const r = feed(times(6, (i) => ({ tool: 'job_status', args: 'job-1', result: `${i * 15}%`, outcome: 'pending' as const })));
    expect(r.firstWarning).toBeNull();
  });

  it('reads a poll whose count climbed and then stalls as waiting, and one change of answer as no motion', () => {
    const counts = [1200, 5400, 11800, 18400, 24950, 24950, 24950, 24950, 24950];
    const climbed = feed(counts.map((n) => ({ tool: 'current_bulk_operation', result: `RUNNING ${n}`, outcome: 'pending' as const })));
    expect(climbed.firstWarning).toBeNull();
    const stuck = feed(times(6, (i) => ({ tool: 'send_input', args: '', result: i === 0 ? 'prompt: select area' : 'no new output', outcome: 'pending' as const })));
    expect(stuck.detectors[3]).toBe('pending-resubmit');
  });

  it('counts a submission answered alike but for the fresh reference each one is handed', () => {
    const refs = ['EXP-20261130-0412', 'EXP-20261130-0413', 'CIG-720A87C0', 'CIG-9ACB22C8'];
    const r = feed(refs.map((ref) => ({ tool: 'start_export', args: 'churned', text: `{"reference":"${ref}","status":"queued"}`, outcome: 'pending' as const })));
    expect(r.levels[2]).toBe('warning');
    expect(r.detectors[2]).toBe('pending-resubmit');
  });

  it('reads a refused resubmission as the repeat it stood for, so the streak goes on past it', () => {
    const calls = ['0412', '0413', '0415', '0416', 'refused', '0419', '0421'].map((ref) => ({
      tool: 'start_export', args: 'churned', text: `{"reference":"EXP-20261130-${ref}","status":"queued"}`, outcome: 'pending' as const,
    }));
    const r = feed(calls.slice(0, 4));
    // The call the breaker refused is recorded as the processor records it: the repeat it prevented, never run.
    r.engine.record('run', { tool: 'start_export', argsHash: hashText('start_export|churned'), normArgsHash: hashText('start_export|churned'), resultHash: hashText(canonicalize(calls[3]!.text)), outcome: 'pending', blocked: true, startMs: 0, endMs: 0 });
    const after = feed(calls.slice(5), {}, r.engine);
    expect(after.detectors).toEqual(['pending-resubmit', 'pending-resubmit']);
  });

  it('does not count fresh references given to other submissions, or an answer that says otherwise', () => {
    const ask = (args: string, ref: string, status = 'queued') => ({ tool: 'start_export', args, text: `{"reference":"${ref}","status":"${status}"}`, outcome: 'pending' as const });
    expect(feed([ask('a', 'EXP-0001-0412'), ask('b', 'EXP-0001-0413'), ask('c', 'EXP-0001-0414'), ask('d', 'EXP-0001-0415')]).firstWarning).toBeNull();
    expect(feed([ask('a', 'EXP-0001-0412'), ask('a', 'EXP-0001-0413', 'running'), ask('a', 'EXP-0001-0414', 'running 40%')]).firstWarning).toBeNull();
  });
});

describe('budget', () => {
  it('warns at 80 % of the tool-call fuse and breaks at the limit', () => {
    const r = feed(times(10, (i) => ({ tool: 'download', args: `f${i}`, result: `saved ${i}` })), { maxToolCalls: 10 });
    expect(r.levels.slice(6, 10)).toEqual([undefined, 'warning', 'warning', 'break']);
    expect(r.detectors[9]).toBe('budget');
  });

  it('counts LLM tokens against maxTokens', () => {
    const first = feed(times(1, { tool: 'a', args: '1', result: '1' }), { maxTokens: 1000 });
    first.engine.addTokens('run', 1200);
    const r = feed(times(1, { tool: 'a', args: '2', result: '2' }), {}, first.engine);
    expect(r.levels[0]).toBe('break');
  });
});

describe('waiting on a job', () => {
  const poll = { tool: 'get_job', args: 'job-1', result: 'RUNNING', outcome: 'pending' as const, namesId: true };

  it('warns only after many unchanged polls of a job named by id, and never blocks by default', () => {
    const r = feed(times(14, poll));
    expect(r.firstWarning).toBe(10);
    expect(r.detectors[9]).toBe('pending-poll');
    expect(r.levels.every((l) => l === undefined || l === 'warning')).toBe(true);
  });

  it('reads a round that submits the work again, checks it by id and cancels it as a cycle, not as waiting', () => {
    // Each round passes back the handle the submission was handed: the same step through <h> (norm), other bytes.
    const round = (i: number) => [
      { tool: 'submit', args: 'select 1', result: 'in progress', outcome: 'pending' as const },
      { tool: 'status', args: `h${i}`, norm: '<h>', result: 'in progress', outcome: 'pending' as const, namesId: true },
      { tool: 'cancel', args: `h${i}`, norm: '<h>', result: 'canceled' },
    ];
    const r = feed([0, 1, 2].flatMap(round));
    expect(r.firstWarning).toBe(6);
    expect(r.detectors[5]).toBe('semantic-repeat');
    // Without the submission in each round, checking the job by id between other steps is waiting.
    const waiting = feed([0, 1, 2].flatMap((i) => round(i).slice(1)));
    expect(waiting.firstWarning).toBeNull();
  });

  it('does not call sleep/poll alternation a ping-pong', () => {
    const calls = times(12, (i) => (i % 2 ? poll : { tool: 'sleep', args: '60', result: 'slept 60' }));
    expect(feed(calls).firstWarning).toBeNull();
  });
});

describe('no-progress with filler', () => {
  it('counts repeats separated only by calls that told nothing new', () => {
    const calls = times(8, (i) => (i % 2 ? { tool: 'get_order', args: 'A-1', result: 'processing' } : { tool: 'think', args: `thought ${i}`, result: 'ok' }));
    const r = feed(calls);
    expect(r.firstWarning).toBe(6);
    expect(r.detectors[5]).toBe('no-progress');
  });

  it('reads a new edit of a file acknowledged as every edit is as work, and the same edit resent as no work', () => {
    const check = { tool: 'bash', args: 'nginx -t', result: 'syntax is ok' };
    const edit = (change: string) => ({ tool: 'edit', args: change, result: 'The file has been edited.', acknowledgedWork: true });
    expect(feed(times(10, (i) => (i % 2 ? check : edit(`change ${i}`)))).firstWarning).toBeNull();
    expect(feed(times(10, (i) => (i % 2 ? check : edit('change 0')))).firstWarning).not.toBeNull();
    // The same new edits, not naming a file, are notes: the checks between them count.
    expect(feed(times(10, (i) => (i % 2 ? check : { ...edit(`change ${i}`), acknowledgedWork: false }))).firstWarning).not.toBeNull();
  });

  it('stops counting at a new answer in between', () => {
    const calls = times(8, (i) => (i % 2 ? { tool: 'get_order', args: 'A-1', result: 'processing' } : { tool: 'send', args: `msg ${i}`, result: `sent ${i}` }));
    expect(feed(calls).firstWarning).toBeNull();
  });

  it('counts across new answers that only hand back the call’s own words (a reworded echo before each no-op)', () => {
    const echo = (words: string) => ({ tool: 'shell', args: `echo '${words}'`, result: words, acknowledgedWork: true, echoesArgs: true });
    const noop = { tool: 'shell', args: 'true', result: '(no output)', informative: true };
    const r = feed([echo('All set.'), noop, echo('Done again.'), noop, echo('Final done'), noop]);
    expect(r.firstWarning).toBe(6);
    expect(r.detectors[5]).toBe('no-progress');
  });

  describe('the same call answered otherwise in between', () => {
    // The same message to a user who keeps answering, a hand-off acknowledged alike (whatever its summary) after each.
    const handOff = (n: number) => ({ tool: 'transfer', args: `summary, take ${n}`, result: 'Transfer successful' });
    const say = (reply: string) => ({ tool: 'respond', args: 'PLEASE HOLD ON.', result: reply, informative: true });
    const talk = (replies: string[]) => replies.flatMap((reply, n) => [handOff(n), say(reply)]);

    it('counts it once its answer comes round again: the replies went round, the run did not move', () => {
      const r = feed(talk(['no transfer please', 'help me here', 'I would rather not', 'help me here']));
      expect(r.firstWarning).toBe(8);
      expect(r.detectors[7]).toBe('no-progress');
    });

    it('does not count a bare value coming back (a random draw: cars, golf, golf, cars)', () => {
      const draw = (topic: string) => ({ tool: 'generate_topic', args: '{}', result: topic, informative: false });
      expect(feed(['cars', 'golf', 'golf', 'cars', 'penguins'].map(draw)).firstWarning).toBeNull();
    });

    it('does not count answers that keep moving on (a poll reporting progress between notes)', () => {
      expect(feed(talk(['queued', 'running 10%', 'running 40%', 'running 90%', 'done'])).firstWarning).toBeNull();
    });

    it('counts one go-round: a steady answer that changed and came back starts a new count from the change', () => {
      const r = feed(talk(['clean', 'clean', 'clean', 'overflow', 'clean', 'clean']));
      expect(r.levels[5]).toBe('warning');
      expect(r.levels[9]).toBe('warning');
      expect(r.detectors[9]).toBe('no-progress');
      // The three steady answers before the change do not join the count (they would make it critical by the end).
      expect(r.levels).not.toContain('critical');
    });
  });

  describe('a lookup that found nothing, asked again', () => {
    const lookup = (name: string) => ({ tool: 'get_class', args: name, result: `Could not find class ${name}`, outcome: 'empty' as const });
    const read = (n: number) => ({ tool: 'search_code', args: `order_by ${n}`, result: `Found ${n} snippets: models.py, options.py, ${n}`, informative: true });

    it('counts it across reading other things and finding nothing elsewhere, then twice in a row', () => {
      const r = feed([lookup('Gallery'), lookup('AddIndex'), read(1), lookup('Gallery'), lookup('Gallery')]);
      expect(r.firstWarning).toBe(5);
      expect(r.detectors[4]).toBe('no-progress');
    });

    it('stops counting at new work in between (an edit acknowledged as the shell acknowledges commands)', () => {
      const shell = (command: string, result = '') => ({ tool: 'bash', args: command, result });
      const edit = (n: number) => shell(`sed -i 's/Galery/Gallery/' models.py # hunk ${n}`);
      const calls = [shell('touch notes.txt'), shell('cat models.py', 'class Galery(models.Model): ...'), lookup('Gallery')];
      for (let n = 0; n < 4; n++) calls.push(edit(n), lookup('Gallery'));
      expect(feed(calls).firstWarning).toBeNull();
    });
  });
});

describe('a body resent', () => {
  // The same patch written out again and again, only acknowledged, with the agent re-reading the file in between.
  const patch = {
    command: [
      "cat > fix.patch << 'EOF'",
      '--- a/django/urls/resolvers.py',
      '+++ b/django/urls/resolvers.py',
      '@@ -256,7 +257,10 @@',
      '                 try:',
      '                     kwargs[key] = converter.to_python(value)',
      '                 except ValueError:',
      '+                    return None',
      '+                except Http404 as e:',
      "+                    raise Resolver404({'path': path}) from e",
      'EOF',
    ].join('\n'),
  };
  const write = { tool: 'bash', argsValue: patch, result: '' };
  const shell = (command: string, result = '') => ({ tool: 'bash', args: command, result, informative: result.length >= 64 });
  const view = (from: number) => shell(`sed -n '${from},${from + 20}p' django/urls/resolvers.py`, `${from}: def match(self, path): match = self.regex.search(path) if match: kwargs = match.groupdict()`);

  it('counts it across reading in between: reading does not change what writing it again does', () => {
    const r = feed([view(250), write, view(255), write, view(260), write]);
    expect(r.firstWarning).toBe(6);
    expect(r.detectors[5]).toBe('no-progress');
  });

  it('stops counting at new work in between (an edit that the write undoes)', () => {
    const edit = (n: number) => shell(`sed -i '${259 + n}s/ValueError/(ValueError, Http404)/' django/urls/resolvers.py`);
    expect(feed([view(250), write, edit(0), write, edit(1), write, edit(2), write]).firstWarning).toBeNull();
  });

  it('leaves a short command alone: the same click may do something else on the page the run moved to', () => {
    const calls = times(12, (i) => (i % 2 ? { tool: 'click', args: 'button#add-to-cart', result: 'added' } : shell(`open /p/${i}`, `product page ${i}: trail shoe size ${i}, in stock, ships in two days from the warehouse`)));
    expect(feed(calls).firstWarning).toBeNull();
  });
});

describe('a write whose read-back holds', () => {
  const dedupe = (n: number) => ({ tool: 'crm_dedupe', args: 'contacts by email', result: `merged C-9${n}1, C-9${n}2, job dd-${n}` });
  const duplicates = { tool: 'crm_sql', args: 'duplicated emails', result: 'ana.ruiz@northwind.example 2, j.okafor@contoso.example 2', informative: true };

  it('flags the write and its unchanged read-back as ping-pong, a period after one whose results all held', () => {
    const r = feed(times(10, (i) => (i % 2 ? dedupe(i) : duplicates)));
    expect(r.firstWarning).toBe(6);
    expect(r.detectors[5]).toBe('ping-pong');
    expect(r.levels[9]).toBe('break');
  });

  it('keeps counting from the read-back when a write comes back with the receipt before it (as a refused write is recorded)', () => {
    // The last two periods repeat exactly; the read-back that held since the first is still the longer evidence.
    const calls = [...times(6, (i) => (i % 2 ? dedupe(i) : duplicates)), duplicates, dedupe(5)];
    const r = feed(calls, { thresholds: { 'ping-pong': { warning: 2, critical: 3, break: 0 } } });
    expect(r.levels.slice(5)).toEqual(['warning', 'warning', 'critical']);
    expect(r.detectors[7]).toBe('ping-pong');
  });

  it('does not flag a read-back that moves (each merge left fewer duplicates)', () => {
    const calls = times(10, (i) => (i % 2 ? dedupe(i) : { ...duplicates, result: `${20 - i} duplicated emails left: ana.ruiz@northwind.example and others` }));
    expect(feed(calls).firstWarning).toBeNull();
  });

  it('reads a read-back made at a waiting pace as waiting (a sync that may yet land)', () => {
    expect(feed(times(10, (i) => (i % 2 ? dedupe(i) : { ...duplicates, durationMs: 45_000 }))).firstWarning).toBeNull();
  });

  it('needs the read-back to say something: a bare acknowledgement held is no observation', () => {
    expect(feed(times(10, (i) => (i % 2 ? dedupe(i) : { tool: 'sync', args: 'contacts', result: 'ok' }))).firstWarning).toBeNull();
  });
});

describe('the same answer to other words', () => {
  it('flags a question reworded while the informative answer stays the same', () => {
    const r = feed(times(6, (i) => ({ tool: 'search', args: `wording ${i}`, result: 'same hits', informative: true })));
    // The results alone are weak evidence, so it takes one more than a repeat of the same call.
    expect(r.firstWarning).toBe(4);
    expect(r.detectors[3]).toBe('same-answer');
    // The results alone are weak evidence: it warns, it never blocks.
    expect(r.levels.every((l) => l === undefined || l === 'warning')).toBe(true);
  });

  it('leaves long bodies far apart alone (different thoughts logged alike), but not a long question reworded', () => {
    const thoughts = [
      'The issue is in set_output of ColumnTransformer: the remainder estimator is never configured, so pandas output is lost.',
      'Look at _iter more carefully to see how it handles the remainder, then compare with what set_output iterates over.',
      'Run the reproduction script to confirm the problem, then write a structured report of the cause and the fix.',
      'Check whether pandas is available in this environment before running anything, the script imports it at the top.',
      'Skip running the script: the code analysis already shows the exact line, so write the report with the proposed patch.',
    ];
    const think = (thought: string) => ({ tool: 'Think', argsValue: { thought }, result: '<system>Thought logged</system>', informative: true });
    expect(feed(thoughts.map(think)).firstWarning).toBeNull();
    const question = 'Which configuration file sets the connection pool size for the orders service in the staging cluster, and what is its value?';
    const reworded = ['', ' please', ' exactly', ' today', ' now'].map((tail) => ({ ...think(question + tail), tool: 'ask_docs', result: 'pool.yaml: 40' }));
    expect(feed(reworded).firstWarning).toBe(4);
  });

  it('reads the same hits in another order, with other scores, as the same answer', () => {
    const hits = (i: number) => ['a', 'b', 'c'].map((id, k) => ({ id, score: 0.7 + ((i + k) % 3) / 100, text: `chunk ${id}` }));
    const search = (i: number, items: unknown) => ({ tool: 'vector_search', args: `wording ${i}`, result: `hits in order ${i}`, items, informative: true });
    const r = feed(times(6, (i) => search(i, { matches: hits(i) })));
    expect(r.firstWarning).toBe(4);
    expect(r.detectors[3]).toBe('same-answer');
    // Another hit each time is another answer.
    expect(feed(times(6, (i) => search(i, { matches: [...hits(i), { id: `d${i}`, score: 0.6, text: 'new' }] }))).firstWarning).toBeNull();
  });

  it('counts the same hits across turns between (a reply sent, the next message), but no other answer', () => {
    const hits = [{ id: 'KB-2210', text: 'standard warranty' }, { id: 'KB-1877', text: 'protection plans' }];
    const turn = (i: number, items: unknown) => [
      { tool: 'kb_search', args: `wording ${i}`, result: 'the same articles', items, informative: true },
      { tool: 'send_reply', args: `reply ${i}`, result: `sent m_${i}` },
      { tool: 'wait_for_customer', args: 'chat', result: `message ${i}`, informative: true },
    ];
    const r = feed(times(5, (i) => turn(i, { results: hits })).flat());
    expect(r.firstWarning).toBe(10);
    expect(r.detectors[9]).toBe('same-answer');
    // One record (a profile, a status) given again each turn is no list of hits: the turns between end its streak.
    expect(feed(times(5, (i) => turn(i, undefined)).flat()).firstWarning).toBeNull();
  });

  it('still lets a cycle over the same calls escalate (the same answer is warning-only evidence)', () => {
    const r = feed(times(8, (i) => ({ tool: 'key', args: i % 2 ? 'ctrl+e' : 'ctrl+shift+e', result: 'same screen', informative: true })));
    expect(r.levels).toContain('critical');
    expect(r.detectors).toContain('ping-pong');
  });

  it('leaves different subjects that answer alike alone (hosts web-01, web-02, …)', () => {
    const r = feed(times(6, (i) => ({ tool: 'ssh', args: `web-0${i}`, shape: 'web-0', result: 'same df output', informative: true })));
    expect(r.firstWarning).toBeNull();
  });

  it('counts a name respelled when the answer names what was asked, one call later than a question reworded', () => {
    // One subject shape (a company's name each time), one record back: it names the company, so the names were respelled.
    const lookup = (i: number, named: boolean) => ({ tool: 'crm_search', args: `Acme variant ${i}`, shape: 'name', result: 'Acme Corporation record', informative: true, namesSubject: named && i > 0 });
    const r = feed(times(6, (i) => lookup(i, true)));
    expect(r.firstWarning).toBe(5);
    expect(r.detectors[4]).toBe('same-answer');
    // One answer that names none of them (a vendor screened `clear`, a robot `docked`) is a sweep over different things.
    expect(feed(times(8, (i) => lookup(i, false))).firstWarning).toBeNull();
    // One named pair is enough for that pair; a pair that neither names ends the streak.
    const broken = times(8, (i) => ({ ...lookup(i, true), namesSubject: i !== 3 && i !== 4 && i > 0 }));
    expect(feed(broken).firstWarning).toBeNull();
  });

  it('leaves a sweep over a listing alone: each question names the next item the run was shown', () => {
    const check = (i: number, listed: boolean) => ({ tool: 'sam_check', args: `legal name ${i}`, result: 'active, no exclusions', informative: true, takesListedItem: listed });
    expect(feed(times(6, (i) => check(i, i > 0))).firstWarning).toBeNull();
    // A last question that took its words from nowhere listed counts back only to the sweep's latest step.
    expect(feed(times(6, (i) => check(i, i !== 5))).firstWarning).toBeNull();
    expect(feed(times(6, (i) => check(i, false))).firstWarning).toBe(4);
  });

  it('leaves a batch of different operations acknowledged alike alone', () => {
    expect(feed(times(10, (i) => ({ tool: 'rename', args: `file ${i}`, result: 'ok', informative: false }))).firstWarning).toBeNull();
  });
});

describe('waiting pace', () => {
  it('reads a page checked at a waiting pace between notes as waiting, however quickly the first check followed the call before it', () => {
    // Logged in, then the dashboard read right away and every 90 s after, a note to itself between reads.
    const watch = (gapMs: number): Call[] => [
      { tool: 'open_site', args: 'shop admin', text: 'Logged in as ops', startMs: 0 },
      ...times(12, (i): Call[] => [
        { tool: 'read_dashboard', args: 'orders', text: 'Open orders: 12. Shipped today: 40. Backlog: 3.', startMs: 1000 + i * gapMs },
        { tool: 'think', args: `still waiting for the backlog to clear, round ${i}`, text: 'OK.', startMs: 1000 + i * gapMs + gapMs / 2 },
      ]).flat(),
    ];
    // The first read's pace is that of the login before it: the reads between are what is paced.
    const watched = feed(watch(90_000));
    expect(watched.detectors).toContain('repeat');
    expect(watched.levels).not.toContain('critical');
    expect(watched.levels).not.toContain('break');
    // The same reads a few seconds apart are a loop, and stopped.
    expect(feed(watch(4_000)).levels).toContain('break');
  });

  it('treats identical checks made half a minute apart or more as polling, and the same checks in quick succession as a loop', () => {
    const engineFor = (gapMs: number) => {
      const r = feed([]);
      let t = 0;
      const levels: Array<string | undefined> = [];
      for (let i = 0; i < 6; i++) {
        const d = r.engine.record('run', { tool: 'dig', argsHash: 'a'.repeat(16), normArgsHash: 'a'.repeat(16), resultHash: 'b'.repeat(16), outcome: 'ok', blocked: false, startMs: t, endMs: t + 40 });
        levels.push(d.level);
        t += gapMs;
      }
      return levels;
    };
    expect(engineFor(60_000).every((l) => l === undefined)).toBe(true);
    expect(engineFor(2_000)[2]).toBe('warning');
  });

  it('treats a long poll that waited half a minute as waiting, even right after a quick answer', () => {
    const r = feed([]);
    const levels: Array<string | undefined> = [];
    // wait_for_reply(conv): timeouts of 30 s, one early reply, more timeouts; the other calls are the agent's own messages.
    const calls: Array<[number, number, string]> = [
      [0, 30_000, 'none'], [30_100, 30_000, 'none'], [60_200, 30_000, 'none'], [90_300, 5_300, 'one sec'],
      [95_700, 30_000, 'none'], [125_800, 30_000, 'none'], [155_900, 30_000, 'none'],
    ];
    for (const [start, duration, reply] of calls) {
      const result = reply === 'none' ? 'e'.repeat(16) : 'f'.repeat(16);
      levels.push(r.engine.record('run', { tool: 'wait_for_reply', argsHash: '1'.repeat(16), normArgsHash: '1'.repeat(16), resultHash: result, outcome: 'ok', blocked: false, startMs: start, endMs: start + duration }).level);
    }
    expect(levels.every((l) => l === undefined)).toBe(true);
    const quick = feed(times(7, (i) => ({ tool: 'wait_for_reply', args: 'conv', result: i === 3 ? 'one sec' : 'none' })));
    expect(quick.firstWarning).not.toBeNull();
  });

  it('reads calls that each last half a minute as waiting (wait(120), a slow run repeated on request)', () => {
    const r = feed([]);
    const found: Array<string | undefined> = [];
    for (let i = 0; i < 4; i++) {
      const t = i * 125_000;
      const d = r.engine.record('run', { tool: 'wait', argsHash: '7'.repeat(16), normArgsHash: '7'.repeat(16), resultHash: '8'.repeat(16), outcome: 'ok', blocked: false, startMs: t, endMs: t + 120_000 });
      found.push(d.level);
    }
    expect(found.every((l) => l === undefined)).toBe(true);
  });

  it('reads identical empty long polls as waiting, not as guessed ids', () => {
    const r = feed([]);
    const found: Array<string | undefined> = [];
    for (let i = 0; i < 12; i++) {
      const t = i * 61_000;
      const d = r.engine.record('run', { tool: 'await_approval', argsHash: '5'.repeat(16), normArgsHash: '5'.repeat(16), resultHash: '6'.repeat(16), outcome: 'empty', shapeHash: '4'.repeat(16), blocked: false, startMs: t, endMs: t + 60_000 });
      found.push(d.level && `${d.level}:${d.evidence[0]?.detector}`);
    }
    expect(found.slice(0, 9).every((l) => l === undefined)).toBe(true);
    expect(found.every((l) => l === undefined || l.startsWith('warning'))).toBe(true);
  });

  it('treats a status that stays "pending" over checks half a minute apart as waiting, not as re-submitting', () => {
    const engineFor = (gapMs: number) => {
      const r = feed([]);
      const found: Array<string | undefined> = [];
      for (let i = 0; i < 6; i++) {
        const t = i * gapMs;
        const d = r.engine.record('run', { tool: 'sh', argsHash: 'c'.repeat(16), normArgsHash: 'c'.repeat(16), resultHash: 'd'.repeat(16), outcome: 'pending', blocked: false, startMs: t, endMs: t + 1_000 });
        found.push(d.level && `${d.level}:${d.evidence[0]?.detector}`);
      }
      return found;
    };
    expect(engineFor(40_000).every((l) => l === undefined)).toBe(true);
    expect(engineFor(3_000)[2]).toBe('warning:pending-resubmit');
  });
});

describe('failure-repeat', () => {
  const fails = { tool: 'update_reservation', args: 'HAT030 2024-05-13', result: 'flight not available', outcome: 'error' as const, failure: 'deterministic' as const };

  it('warns at the third identical deterministic failure, blocks the fourth, stops the sixth', () => {
    const r = feed(times(6, fails));
    expect(r.levels).toEqual([undefined, undefined, 'warning', 'critical', 'critical', 'break']);
    expect(r.detectors[2]).toBe('failure-repeat');
  });

  it('leaves transient failures to retry-storm', () => {
    expect(feed(times(7, { ...fails, failure: 'transient' as const })).firstWarning).toBeNull();
  });

  it('counts resends separated by notes to itself (a think tool answering alike)', () => {
    const think = (n: number) => ({ tool: 'think', args: `the amounts must add up, take ${n}`, result: '' });
    const r = feed([think(0), fails, think(1), fails, think(2), fails]);
    expect(r.firstWarning).toBe(6);
    expect(r.detectors[5]).toBe('failure-repeat');
  });

  it('gives an attempt of slack for new work before it (an edit, then the test again)', () => {
    const test = { tool: 'bash', args: 'pytest -x', result: 'TypeError: unsupported operand', outcome: 'error' as const, failure: 'deterministic' as const };
    const r = feed(times(8, (i) => (i % 2 ? test : { tool: 'bash', args: `sed -i edit ${i}`, result: '' })));
    expect(r.firstWarning).toBeNull();
  });

  it('does not read a search that found nothing, or a new reply, as a fix', () => {
    const search = (n: number) => ({ tool: 'search_flights', args: `LAX ORD day ${n}`, result: '[]', outcome: 'empty' as const });
    const reply = (n: number) => ({ tool: 'respond', args: `sorry, still failing ${n}`, result: `the user answers, in words of their own, ${n}`, informative: true });
    const r = feed([fails, reply(1), fails, search(1), search(2), reply(2), fails]);
    expect(r.firstWarning).toBe(7);
    expect(r.detectors[6]).toBe('failure-repeat');
  });

  it('does not read a short computed value as a fix: only commands acknowledged as their tool acknowledges them are work', () => {
    const think = (n: number) => ({ tool: 'think', args: `the amounts must add up, take ${n}`, result: '' });
    const calculate = { tool: 'calculate', args: '158 + 141', result: '299.0' };
    const r = feed([fails, think(1), fails, think(2), calculate, fails]);
    expect(r.firstWarning).toBe(6);
    expect(r.detectors[5]).toBe('failure-repeat');
  });

  it('gives an attempt of slack for a wait before it (a lock held by another run)', () => {
    const sleep = { tool: 'bash', args: 'sleep 90', result: '', durationMs: 90_000 };
    const apply = { tool: 'bash', args: 'terraform apply tfplan', result: 'Error acquiring the state lock', outcome: 'error' as const, failure: 'deterministic' as const };
    expect(feed([apply, sleep, apply, sleep, apply, sleep, apply]).firstWarning).toBeNull();
  });

  it('does not read a message the user took long to answer as a wait: that is a conversation turn', () => {
    const messages = [
      'I apologise for the continued issues. It seems there is a problem with the date format; let me correct that and register the order again.',
      'I sincerely apologise for the repeated errors. I will attempt one more time, and if it fails, I will transfer you to a human agent.',
    ];
    const message = (n: number, durationMs: number) => ({ tool: 'respond', argsValue: { content: messages[n - 1] }, result: `yes, confirm ${n}`, durationMs });
    expect(feed([fails, message(1, 68_000), fails, message(2, 14_000), fails]).detectors[4]).toBe('failure-repeat');
    // A wait that says nothing still earns its slack (a lock held by another run).
    const sleep = { tool: 'bash', args: 'sleep 90', result: '', durationMs: 90_000 };
    expect(feed([fails, sleep, fails, message(2, 14_000), fails]).firstWarning).toBeNull();
  });

  it('reads a resend whose instant is only spelled another way as the same call, not a fix', () => {
    const order = (at: string) => ({ argsValue: { item: 'item_0088', quantity: 200, deliver_at: at }, failureText: "TypeError: '<' not supported between instances of 'str' and 'datetime.datetime'" });
    const reply = (n: number) => ({ tool: 'respond', args: `sorry, trying again ${n}`, result: `yes, confirm ${n}` });
    const resent = (at: string) => [{ tool: 'register_order', ...order('2024-07-27 08:00') }, reply(1), { tool: 'register_order', ...order(at) }, reply(2), { tool: 'register_order', ...order(at) }];
    const respelled = feed(resent('2024-07-27T08:00:00'));
    expect(respelled.firstWarning).toBe(5);
    expect(respelled.detectors[4]).toBe('failure-repeat');
    // Another time is a change, and earns its attempt of slack.
    expect(feed(resent('2024-07-27T09:00:00')).firstWarning).toBeNull();
  });

  it('reads time the run let pass as a wait, but not a call that merely follows a slow attempt', () => {
    // `compose up` fails after 38 s each time; the logs are read 2 s after it ended, or 40 s after.
    const run = (pauseMs: number) =>
      [0, 1, 2].flatMap((round) => {
        const start = round * (38_000 + pauseMs + 5_000);
        const up = { tool: 'bash', args: 'docker compose up -d', result: 'db unhealthy', outcome: 'error' as const, failure: 'deterministic' as const, startMs: start, durationMs: 38_000 };
        const logs = { tool: 'bash', args: 'docker compose logs db', result: 'chmod: Operation not permitted', startMs: start + 38_000 + pauseMs, durationMs: 500 };
        return round < 2 ? [up, logs] : [up];
      });
    expect(feed(run(2_000)).firstWarning).toBe(5);
    expect(feed(run(40_000)).firstWarning).toBeNull();
  });

  it('tells test runs apart by how they end, whatever banner they share (a fix taken out and put back to compare)', () => {
    const banner = [
      'test session starts: platform linux, Python 3.9.20, pytest-7.4.0, pluggy-1.3.0, rootdir /testbed, configfile setup.cfg',
      'Running tests with Astropy version 5.2.dev64 from the source tree; remote data off, plugins doctestplus, hypothesis, arraydiff, filter-subpackage',
      'collected 193 items; test_skycoord_representation TypeError: reshape() got an unexpected keyword argument dtype in astropy/units/quantity.py',
    ].join('\n');
    const run = (failed: number) => ({ tool: 'bash', args: 'pytest astropy/table/tests/test_mixin.py', failureText: `${banner}\n=== ${failed} failed, ${187 - failed} passed, 6 skipped in 1.${failed}4s ===` });
    const out = { tool: 'bash', args: 'git checkout astropy/table/table.py', result: 'Updated 1 path from the index' };
    const back = { tool: 'bash', args: "sed -i '1242,1247d' astropy/table/table.py", result: '' };
    const toggled = [run(1), out, run(2), back, run(1), out, run(2)];
    expect(feed(toggled).firstWarning).toBeNull();
    // Ending alike (the fix made no difference), they are the same failure again and again.
    expect(feed(toggled.map((c) => ('failureText' in c ? run(1) : c))).detectors).toContain('failure-repeat');
  });

  it('counts an edit done at its first send, then resent and refused alike, as work redone', () => {
    const edit = { tool: 'str_replace_editor', args: "models.py: symmetrical=True -> related_name='friends'" };
    const applied = { ...edit, result: 'The file models.py has been edited.' };
    const refused = { ...edit, result: 'New string already exists in models.py. No changes were made.', outcome: 'error' as const, failure: 'deterministic' as const };
    const view = (n: number) => ({ tool: 'view_code', args: `tests/models.py lines ${n * 50}-${n * 50 + 50}`, result: `lines of the file, part ${n}` });
    const r = feed([applied, view(1), refused, view(2), view(3), refused]);
    expect(r.firstWarning).toBe(6);
    expect(r.detectors[5]).toBe('failure-repeat');
    // Refused twice without the first send having been done is a fix still being looked for.
    expect(feed([view(0), view(1), refused, view(2), view(3), refused]).firstWarning).toBeNull();
  });

  it('reads a check re-run after edits whose failure moved as fixing, but the same failure after them as a loop', () => {
    // A coding agent re-runs one typecheck after each edit: same banner and footer, the error list shrinking and moving.
    const root = '/home/dev/app/packages/web';
    const error = (line: number, code: number, text: string) => `src/core/app.ts(${line},9): error TS${code}: ${text}`;
    const errors = {
      route: error(42, 2345, "Argument of type 'Effect<Response, never, never>' is not assignable to parameter of type 'Handler<Response, unknown>'."),
      pipe: error(57, 2339, "Property 'pipe' does not exist on type 'Router<never, never>'."),
      serve: error(88, 2554, 'Expected 1 arguments, but got 2.'),
      layer: error(95, 2322, "Type 'Layer<never, never, Server>' is not assignable to type 'Layer<never, never, never>'."),
      request: error(43, 2304, "Cannot find name 'ServerRequest'."),
      status: error(61, 2741, "Property 'status' is missing in type '{ body: string; }' but required in type 'Response'."),
    };
    const typecheck = (...lines: string[]) => ({
      tool: 'Bash',
      args: 'pnpm --filter=@acme/web typecheck',
      failureText: ['Exit code 2', `> @acme/web@0.0.1 typecheck ${root}`, '> tsc --noEmit', ...lines, `${root}:`, ' ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  @acme/web@0.0.1 typecheck: `tsc --noEmit`', 'Exit status 2'].join('\n'),
    });
    // An edit answered with a snippet of the file reads like a file view: nothing tells it from reading.
    const edit = (n: number) => ({ tool: 'Edit', args: `app.ts edit ${n}`, result: `The file app.ts has been updated; the snippet around edit ${n} follows`, informative: true });
    const read = (n: number) => ({ tool: 'Read', args: `types ${n}`, result: `the declarations of part ${n} of the router`, informative: true });
    const run = (checks: Call[]) => [checks[0]!, read(1), checks[1]!, read(2), read(3), edit(1), edit(2), checks[2]!, read(4), edit(3), checks[3]!, edit(4), read(5), edit(5), checks[4]!, edit(6), checks[5]!, edit(7)];
    const first = typecheck(errors.route, errors.pipe, errors.serve, errors.layer);
    const moved = run([first, first, typecheck(errors.request, errors.serve, errors.layer), typecheck(errors.status, errors.serve, errors.layer), typecheck(errors.status, errors.layer), typecheck(errors.layer)]);
    expect(feed(moved).firstWarning).toBeNull();
    // The same failure after every edit: the edits do not touch what the check reports.
    const same = feed(run(times(6, first)));
    expect(same.detectors).toContain('failure-repeat');
    expect(same.levels).toContain('break');
  });

  it('ends the count when the call succeeds or fails another way', () => {
    const ok = { ...fails, outcome: 'ok' as const, result: 'updated', failure: undefined };
    expect(feed([fails, fails, ok, fails, fails]).firstWarning).toBeNull();
    expect(feed([fails, fails, { ...fails, result: 'payment declined' }, fails, fails]).firstWarning).toBeNull();
  });
});

describe('sameness by similarity', () => {
  const page = (seconds: number, extra = '') =>
    `Treasury Division | Queen Anne's County, MD. You previously visited this page ${seconds} seconds ago. The treasury division collects property taxes, utility bills and special assessments; pay online, by mail or in person. Email the department or call during office hours.${extra}`;

  it('reads one page with another relative time as the same answer: repeated clicks are no progress, one call later than equal ones', () => {
    const r = feed(times(5, (i) => ({ tool: 'click', args: 'Email the Department', text: page(9 + i) })));
    expect(r.firstWarning).toBe(4);
    expect(r.detectors[3]).toBe('no-progress');
    expect(feed(times(5, () => ({ tool: 'click', args: 'Email the Department', text: page(9) }))).firstWarning).toBe(3);
  });

  it('reads a log growing a line at a time as progress, though each step differs little', () => {
    const tasks = ['compileKotlin', 'processResources', 'classes', 'jar', 'compileTestJava', 'test', 'javadoc', 'assemble', 'check', 'build'];
    const modules = ['buildSrc', 'core', 'api', 'service', 'cli', 'web', 'worker', 'docs'];
    const lines = times(24, (i) => `> Task :${modules[i % 8]}:${tasks[(i * 3) % 10]} took ${i * 37 % 90} ms`);
    const r = feed(times(24, (i) => ({ tool: 'read_file', args: 'build.log', text: lines.slice(0, i + 1).join('\n') })));
    expect(r.firstWarning).toBeNull();
  });

  it('does not read a polled table drifting a few rows at a time as no progress, though each reading is near the one before', () => {
    const poll = (i: number): Call => ({ tool: 'list_orders', args: 'latest', text: ordersTable(i) });
    // Chained reading to reading, the polls would be one unchanged answer: no-progress from the fourth, a break at the ninth.
    expect(feed(times(5, poll)).firstWarning).toBeNull();
    // Polled back to back with nothing between, the polls are no-progress's alone: `repeat` does not count the polls
    // within each answer as results coming back either.
    expect(feed(times(12, poll)).firstWarning).toBeNull();
    const unchanged = feed(times(12, () => poll(0)));
    expect(unchanged.firstWarning).toBe(3);
    expect(unchanged.detectors[2]).toBe('no-progress');
  });
});

describe('a resend in other words', () => {
  const pods = 'NAME                       READY   STATUS             RESTARTS   AGE\ncheckout-7f9c8d6b5-x2lqp   0/1     CrashLoopBackOff   7          14m';
  // The same command, its flags spelt otherwise each time, told the very same thing each time.
  const wordings = [
    'kubectl get pods -n shop',
    'kubectl get pods --namespace shop',
    'kubectl get pods --namespace=shop',
    'kubectl -n shop get pods',
    'kubectl get pods -n shop -o wide',
    'kubectl get pods -n shop --output wide',
    'kubectl get pods -n=shop',
    'kubectl get pods --namespace shop',
  ];
  const respelled = (i: number, extra: Partial<Call> = {}): Call => ({
    tool: 'bash',
    argsValue: { command: wordings[i] },
    result: pods,
    informative: true,
    ...extra,
  });

  // The first call of them was told nothing other arguments had been told, so it has no signature to compare: one call later than equal ones.
  it('reads a reworded resend told the very same thing as the call again: a repeat, one call later than the call resent unchanged', () => {
    const r = feed(times(8, (i) => respelled(i)));
    expect(r.firstWarning).toBe(4);
    expect(r.detectors[3]).toBe('semantic-repeat');
    expect(r.levels[5]).toBe('critical');
    expect(feed(times(8, () => respelled(0))).firstWarning).toBe(3);
  });

  it('closes a cycle through a reworded call as through the call itself, one call later', () => {
    const logs: Call = { tool: 'read_logs', args: 'checkout', result: 'redis unreachable', informative: true };
    const r = feed(times(8, (i) => (i % 2 ? logs : respelled(i))));
    expect(r.firstWarning).toBe(5);
    expect(r.detectors[4]).toBe('semantic-repeat');
    expect(r.levels).toContain('critical');
    expect(feed(times(8, (i) => (i % 2 ? logs : respelled(0)))).firstWarning).toBe(4);
  });

  it('still counts the same answer to other words when the latest call is a resend of the one before', () => {
    const questions = ['refund policy for damaged items', 'can I return a broken blender', 'warranty coverage kitchen appliances', 'warranty coverage for kitchen appliances'];
    const r = feed(questions.map((query) => ({ tool: 'kb_search', argsValue: { query }, result: 'Policy 4.2: items damaged in transit are refunded within 30 days.', informative: true })));
    expect(r.firstWarning).toBe(4);
    expect(r.detectors[3]).toBe('same-answer');
  });

  // A lookup that found nothing first: every call after it gets its words, so only the rule keeps these apart.
  const foundNothing: Call = { tool: 'grep', argsValue: { pattern: 'REDIS_URL' }, result: '', outcome: 'empty' };

  it('leaves a call that takes the next item of a listing alone: a sweep step, however its words compare', () => {
    expect(feed(times(8, (i) => respelled(i))).detectors).toContain('semantic-repeat');
    expect(feed(times(8, (i) => respelled(i, { takesListedItem: i > 0 }))).detectors).not.toContain('semantic-repeat');
  });

  it('leaves a resend told only a bare acknowledgement alone', () => {
    expect(feed([foundNothing, ...times(8, (i) => respelled(i, { result: 'ok', informative: false }))]).firstWarning).toBeNull();
  });

  it('leaves reworded calls whose results are only near one another alone', () => {
    const r = feed([foundNothing, ...times(8, (i) => respelled(i, { result: undefined, text: `${pods}\nchecked ${i} seconds after the last restart` }))]);
    expect(r.firstWarning).toBeNull();
  });

  it('leaves a sweep over a number alone, where the same sweep reworded elsewhere counts', () => {
    const curl = (page: number, jq: boolean): Call => ({
      tool: 'bash',
      argsValue: { command: `curl -s 'https://api.billing.example/v1/invoices?status=open&limit=50&page=${page}' -H 'Accept: application/json'${jq ? ' | jq .' : ''}` },
      result: '{"data":[{"number":"INV-7781","customer":"Hartwell Dental","amount_due":1840.5}],"next_cursor":"c_2"}',
      informative: true,
    });
    const sweep = feed(times(8, (i) => curl(i + 1, false)));
    expect(sweep.detectors).not.toContain('semantic-repeat');
    expect(sweep.levels).not.toContain('critical');
    // One page, piped through jq one time and not the next, a check of the tests between: resent in other words.
    const tests: Call = { tool: 'run_tests', args: 'billing', result: '3 failed', informative: true };
    const reworded = feed(times(12, (i) => (i % 2 ? tests : curl(1, i % 4 === 0))));
    expect(reworded.detectors).toContain('semantic-repeat');
  });
});

describe('revisit', () => {
  const found = (name: string) => ({ tool: 'search_class', args: name, result: `Found class ${name} in models.py: class ${name}(Base) ...`, informative: true });
  const missing = (name: string) => ({ tool: 'search_method', args: name, result: `Could not find method ${name}`, outcome: 'empty' as const });
  const asked = [found('Gallery'), missing('Gallery.save'), found('Image')];

  it('flags the same lookups re-requested round after round, in any order, among a few new ones', () => {
    const calls = [...asked, found('Album'), asked[1]!, asked[0]!, found('Tag'), asked[2]!, asked[2]!, asked[0]!, asked[1]!];
    const r = feed(calls);
    // The second round asks three things again while the stretch brought four new answers (the lookup that found nothing is
    // none); the fourth question asked again for nothing tips it.
    expect(r.firstWarning).toBe(9);
    expect(r.detectors[8]).toBe('revisit');
  });

  it('reads the pause between rounds of a slow model as thinking, not as a wait', () => {
    const rounds = [[...asked, found('Album')], [asked[1]!, asked[0]!, found('Tag')], [asked[2]!, asked[2]!, asked[0]!, asked[1]!]];
    const calls = rounds.flatMap((round, n) => round.map((call) => ({ ...call, startMs: n * 45_000 })));
    expect(feed(calls).detectors[8]).toBe('revisit');
  });

  it('leaves a hub revisited between new pages alone: one question asked again, however often', () => {
    const listing = { tool: 'click', args: 'Back to results', result: 'Results: 24 kettles, sorted by price, page 1 of 3 ...', informative: true };
    const calls = times(16, (i) => (i % 2 ? { tool: 'click', args: `product ${i}`, result: `Kettle ${i}: 1.7 l, ${20 + i} EUR, in stock`, informative: true } : listing));
    expect(feed(calls).detectors).not.toContain('revisit');
  });

  it('leaves two things looked at again and again to the families that see one call resent: a round asks three', () => {
    const calls = [...asked.slice(0, 2), found('Album'), ...asked.slice(0, 2), ...asked.slice(0, 2), found('Tag'), ...asked.slice(0, 2)];
    expect(feed(calls).detectors).not.toContain('revisit');
  });

  it('leaves a run that re-checks a few things while most of its calls bring something new alone', () => {
    const calls = [...asked, ...times(4, (i) => found(`Model${i}`)), ...asked, ...times(3, (i) => found(`View${i}`))];
    expect(feed(calls).firstWarning).toBeNull();
  });

  it('does not count a question asked again after new work (an edit acknowledged as the shell acknowledges commands)', () => {
    const shell = (command: string, result = '') => ({ tool: 'bash', args: command, result });
    const edit = (n: number) => shell(`sed -i 's/Galery/Gallery/' models.py # hunk ${n}`);
    const calls = [shell('touch notes.txt'), shell('cat models.py', 'class Galery(models.Model): ...'), ...asked];
    for (let n = 0; n < 3; n++) calls.push(edit(n), ...asked);
    expect(feed(calls).detectors).not.toContain('revisit');
  });

  it('leaves a round repeated whole, nothing else asked, to the cycle family and its pace', () => {
    const r = feed([...asked, ...asked, ...asked]);
    expect(r.detectors).toContain('cycle');
    expect(r.detectors).not.toContain('revisit');
  });

  it('reads a wait between rounds (a sleep) as what may change the answers: jobs polled each minute, with other reading between', () => {
    const status = (job: string) => ({ tool: 'job_status', args: job, result: `job ${job}: running, 3 of 5 steps done`, informative: true });
    const sleep = { tool: 'sleep', args: '60', result: 'slept 60 s', durationMs: 60_000 };
    const calls: Call[] = [status('A'), status('B'), status('C')];
    for (let n = 0; n < 4; n++) calls.push(sleep, found(`Doc${n}`), status('A'), status('B'), status('C'));
    expect(feed(calls).detectors).not.toContain('revisit');
  });

  it('reads a call near an earlier one (a long argument cut off elsewhere) as the same question', () => {
    const cell = (end: number) => `import pandas as pd\ndf = pd.read_csv("sales.csv")\nprint(df.groupby("region").sum())\n# checking the totals per region once more before the report${' and again'.repeat(end)}`;
    const run = (end: number) => ({ tool: 'python', argsValue: { code: cell(end) }, result: 'north 120\nsouth 80', informative: true });
    const calls = [run(0), missing('Report.render'), found('Report'), found('Chart'), run(1), asked[1]!, missing('Report.render'), found('Report'), run(2)];
    expect(feed(calls).detectors).toContain('revisit');
  });
});

describe('revisit: a conversation going round', () => {
  /** `n` words on a topic, the last `changed` of them worded anew in each variant: the same thing said again in other words. */
  const said = (topic: string, variant: number, n: number, changed: number) =>
    Array.from({ length: n }, (_, i) => (i < n - changed ? `${topic}${i}` : `${topic}${i}v${variant}`)).join(' ');
  /** A message sent and the reply it got. */
  const turn = (message: string, reply: string): Call => ({ tool: 'send_message', argsValue: { content: message }, text: reply, informative: true });
  const instructions = (v: number) => said('pin', v, 40, 7);
  const stillLocked = (v: number) => said('still', v, 30, 6);
  const other = (k: number) => turn(said(`step${k}x`, 0, 40, 0), said(`answer${k}x`, 0, 30, 0));
  const lineRecord = { tool: 'get_line', args: 'L1002', result: '{"line_id":"L1002","status":"Active","plan_id":"P1002"}', informative: true };

  it('flags the same instructions said again in other words and answered alike, between other turns', () => {
    // Neither side is near by the bars every other detector reads: the message is reworded past J 0.7, the reply past J 0.65.
    const message = fingerprintArgs({ content: instructions(1) }).argsSketch!;
    expect(sketchSimilarity(message, fingerprintArgs({ content: instructions(3) }).argsSketch!)).toBeLessThan(0.7);
    const calls = [other(0), turn(instructions(1), stillLocked(1)), other(1), lineRecord, turn(instructions(2), stillLocked(2)), other(2), lineRecord, turn(instructions(3), stillLocked(3))];
    const r = feed(calls);
    expect(r.firstWarning).toBe(8);
    expect(r.detectors[7]).toBe('revisit');
  });

  it('leaves a refusal restated to each new plea alone: the message goes round, the replies move on', () => {
    const calls = [1, 2, 3, 4].flatMap((v) => [turn(instructions(v), said(`plea${v}x`, 0, 30, 0)), other(v)]);
    expect(feed(calls).detectors).not.toContain('revisit');
  });

  it('leaves the same failure reported after each new fix alone: the replies go round, the messages move on', () => {
    const calls = [1, 2, 3, 4].flatMap((v) => [turn(said(`fix${v}x`, 0, 40, 0), stillLocked(v)), lineRecord]);
    expect(feed(calls).detectors).not.toContain('revisit');
  });

  it('leaves a batch alone: one command over values, back to back, answered alike', () => {
    const calls = [1, 2, 3, 4, 5].map((v) => turn(instructions(v), stillLocked(v)));
    expect(feed(calls).detectors).not.toContain('revisit');
  });

  it('leaves a todo list rewritten between lookups alone: its tool acknowledges every version alike, no one replies', () => {
    const tasks = ['Inspect the tables and their keys', 'Read the query language guide', 'Set up the graph from the tables', 'Evaluate the churn query', 'Predict churn for the five customers', 'Report the results to the user'];
    const todos = (done: number) => ({ todos: tasks.map((content, i) => ({ content, status: i < done ? 'completed' : i === done ? 'in_progress' : 'pending' })) });
    const ack = 'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable';
    // The list passed as one JSON string, as some hosts hand tool arguments over.
    const write = (done: number): Call => ({ tool: 'TodoWrite', argsValue: { todos: JSON.stringify(todos(done).todos) }, text: ack, informative: true });
    const lookup = (k: number): Call => ({ tool: 'get_docs', args: `guide part ${k}`, text: `the text of part ${k} of the guide`, informative: true });
    const calls = [0, 1, 2, 3, 4].flatMap((done) => [write(done), lookup(2 * done), lookup(2 * done + 1)]);
    expect(feed(calls).detectors).not.toContain('revisit');
  });

  it('reads a command acknowledged between the exchanges as action: each is said after a change', () => {
    const change = (k: number) => ({ tool: 'edit_file', args: `config/apn${k}.xml`, result: '{"ok":true}', acknowledgedWork: true });
    const calls = [1, 2, 3, 4].flatMap((v) => [turn(instructions(v), stillLocked(v)), change(v)]);
    expect(feed(calls).detectors).not.toContain('revisit');
  });
});

describe('revisit: an ask left standing', () => {
  /** A turn of a support chat: the agent's message and the user's reply. */
  const turn = (k: number, message: string, reply: string): Call => ({ tool: 'respond', args: `turn ${k}`, result: reply, informative: true, turn: { message, reply } });
  const asks = [
    'To look up your order I need to verify your identity. What is your postcode?',
    'I will need your postcode to verify your account before I can look up the order.',
    'Before I can help with the exchange, could you please provide your postcode?',
    'Could you please give me your postcode so I can find your account?',
  ];
  const replies = ['My postcode is 40213.', 'I said it: 40213.', 'It is 40213, as I told you.', '40213!'];
  const given = (k: number) => turn(k, asks[k]!, replies[k]!);
  const lookup: Call = { tool: 'find_user', args: 'postcode 40213', result: 'user_kim_4410', informative: true };

  it('warns at the third ask: the one answered with a value the run had, and two restated after it', () => {
    const r = feed([given(0), given(1), given(2), given(3)]);
    expect(r.firstWarning).toBe(4);
    expect(r.detectors[3]).toBe('revisit');
    expect(r.levels[3]).toBe('warning');
  });

  it('reads the same lookup answered alike between the asks as no interruption, and a new one as one', () => {
    const r = feed([given(0), lookup, given(1), lookup, given(2), lookup, given(3)]);
    expect(r.levels[6]).toBe('warning');
    expect(r.detectors[6]).toBe('revisit');
    const other: Call = { tool: 'get_order', args: 'W5561203', result: 'order W5561203: lamp', informative: true };
    expect(feed([given(0), lookup, given(1), lookup, given(2), other, given(3)]).levels[6]).toBeUndefined();
  });
});

describe('revisit: coming back to pages already read', () => {
  /** The model's reading of a screenshot: other words on every visit, as a vision model's transcripts are. */
  const ocr = (reading: number) => Array.from({ length: 40 }, (_, k) => `w${(reading * 7919 + k * 104729) % 100003}`).join(' ');
  /** A browsing agent's observation: the page and where the view sits, then the model's reading of the screenshot (new words each time). */
  const view = (tool: string, args: string, page: string, position: string, reading: number) => ({
    tool,
    args,
    text: `[${page}](https://shop.example.com/${page.toLowerCase().replace(/ /g, '-')}) The viewport shows 9% of the webpage, and is positioned ${position}. | OCR: ${ocr(reading)}`,
    informative: true,
  });
  const search = (n: number) => view('web_search', `stock history attempt ${n}`, `Search ${n}`, 'at the top', n);

  it('flags a run that keeps coming back, by other routes, to the views it has read', () => {
    const calls = [
      search(1), view('click', 'History', 'Price History', 'at the top', 1), view('page_down', '', 'Price History', '8% down', 2),
      search(2), view('click', 'Quotes', 'Quote Page', 'at the top', 3),
      search(3), view('click', 'Price History page', 'Price History', 'at the top', 4),
      search(4), view('click', 'Quotes and data', 'Quote Page', 'at the top', 5),
      search(5), view('click', 'Apple history', 'Price History', 'at the top', 6),
    ];
    const r = feed(calls);
    // Returns at 7 and 9 are two views come back to; the third return (11) makes a round.
    expect(r.firstWarning).toBe(11);
    expect(r.detectors[10]).toBe('revisit');
    expect(r.levels[10]).toBe('warning');
  });

  it('leaves a listing come back to between new pages alone: one view, however often', () => {
    const calls = [search(1)];
    for (let i = 0; i < 8; i++) calls.push(view('click', 'Back to results', 'Results', 'at the top', i), view('click', `product ${i}`, `Product ${i}`, 'at the top', i));
    expect(feed(calls).detectors).not.toContain('revisit');
  });

  it('leaves pages watched with waits between alone: two dashboards checked after each sleep', () => {
    const sleep = { tool: 'sleep', args: '60', result: 'slept 60 s', durationMs: 60_000 };
    const calls: Call[] = [search(1)];
    for (let i = 0; i < 5; i++) calls.push(view('open', 'CI', 'Build Status', 'at the top', 2 * i), view('open', 'Deploy', 'Deploy Status', 'at the top', 2 * i + 1), sleep);
    expect(feed(calls).detectors).not.toContain('revisit');
  });

  it('reads staying on a view (a second click on it, a scroll that hits the bottom) as no return', () => {
    const calls = [search(1)];
    for (let i = 0; i < 4; i++) calls.push(view('click', `Tab ${i}`, `Page ${i}`, 'at the top', i), view('click', `Tab ${i} again`, `Page ${i}`, 'at the top', i + 1));
    expect(feed(calls).detectors).not.toContain('revisit');
  });
});
