import type { ToolDetectorName } from '../config.js';
import { budget } from './budget.js';
import { interleavedNoProgress } from './interleaved.js';
import type { Detector } from './evidence.js';
import { periodic } from './periodic.js';
import { repeat } from './repeat.js';
import { revisit } from './revisit.js';
import { failureRepeat } from './failure-repeat.js';
import { emptyStreak, pendingResubmit, retryStorm, sameError } from './streaks.js';

export type { Continuation, Detector, DetectorContext, Evidence } from './evidence.js';

/** Every detector, with the family names it can report (to honour `disable`). */
export const DETECTORS: ReadonlyArray<{ run: Detector; reports: readonly ToolDetectorName[] }> = [
  { run: periodic, reports: ['no-progress', 'ping-pong', 'cycle', 'semantic-repeat', 'same-answer'] },
  { run: repeat, reports: ['repeat'] },
  { run: interleavedNoProgress, reports: ['no-progress'] },
  { run: revisit, reports: ['revisit'] },
  { run: emptyStreak, reports: ['empty-streak'] },
  { run: retryStorm, reports: ['retry-storm'] },
  { run: failureRepeat, reports: ['failure-repeat'] },
  { run: sameError, reports: ['same-error'] },
  { run: pendingResubmit, reports: ['pending-resubmit', 'pending-poll'] },
  { run: budget, reports: ['budget'] },
];
