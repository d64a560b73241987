import { describe, expect, it } from 'vitest';
import { parseCorpus } from '../../../src/eval/corpus.js';
import { replayCorpus } from '../../../src/eval/replay.js';

/** A status check made six times, answered alike each time, with `pauseMs` between the third and the fourth. */
function pollingRun(pauseMs: number): string {
  const steps = Array.from({ length: 6 }, (_, i) => ({
    tool: 'job_status',
    args: { job: 'export-7' },
    status: 'ok',
    result: 'stuck at 40 %',
    t: i * 1000 + (i >= 3 ? pauseMs : 0),
  }));
  return JSON.stringify({ id: `poll-${pauseMs}`, label: 'normal', steps });
}

describe('the replay clock', () => {
  it('ages a run by its recorded pauses, so a pause past runTtlMs forgets it as it would live', async () => {
    const [shortPause, longPause] = await replayCorpus(parseCorpus(`${pollingRun(10 * 60_000)}\n${pollingRun(40 * 60_000)}\n`), {});
    // Ten minutes apart the six checks are one run: the third identical answer warns, the fifth is critical.
    expect(shortPause).toMatchObject({ firstWarning: 3, firstCritical: 5 });
    // Forty minutes apart (the default TTL is thirty) the last three start a fresh run, which never reaches critical.
    expect(longPause).toMatchObject({ firstWarning: 3, firstCritical: null });
  });
});
