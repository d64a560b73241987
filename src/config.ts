/** The tool-call detector families (DESIGN §3) and the fuses (`budget`): what tool-call evidence reports. */
export type ToolDetectorName =
  | 'no-progress'
  | 'repeat'
  | 'ping-pong'
  | 'cycle'
  | 'semantic-repeat'
  | 'empty-streak'
  | 'retry-storm'
  | 'failure-repeat'
  | 'same-error'
  | 'pending-resubmit'
  | 'pending-poll'
  | 'same-answer'
  | 'revisit'
  | 'budget';

/** The model side's own detectors and the completion gate (docs/model-turns.md); the output-token fuse reports as `budget`. */
export type ModelSideDetectorName = 'diminishing-returns' | 'truncation' | 'repeated-answer' | 'chanting' | 'completion-gate';

/** Every name `loopguard.detector` takes; each is accepted by `disable`. */
export type DetectorName = ToolDetectorName | ModelSideDetectorName;

/** Every detector name, the tool side's first: what `disable` accepts and `loopguard.detector` says. */
export const DETECTOR_NAMES: readonly DetectorName[] = [
  'no-progress',
  'repeat',
  'ping-pong',
  'cycle',
  'semantic-repeat',
  'empty-streak',
  'retry-storm',
  'failure-repeat',
  'same-error',
  'pending-resubmit',
  'pending-poll',
  'same-answer',
  'revisit',
  'budget',
  'diminishing-returns',
  'truncation',
  'repeated-answer',
  'chanting',
  'completion-gate',
];

/**
 * Evidence counts at which a detector reaches each tier. A tier set to 0 is
 * never reached. Units are the detector's own (see README, "Detectors").
 */
export interface Thresholds {
  warning: number;
  critical: number;
  break: number;
}

export type PresetName = 'conservative' | 'balanced' | 'aggressive';
export const PRESET_NAMES: readonly PresetName[] = ['conservative', 'balanced', 'aggressive'];

/**
 * Detectors with tiers of their own. `semantic-repeat` uses the tiers of the
 * exact family of the same period (`no-progress` for 1, `ping-pong` for 2,
 * `cycle` above), and `budget` has limits instead of tiers.
 */
export type TieredDetector = Exclude<ToolDetectorName, 'budget' | 'semantic-repeat'>;
export const TIERED_DETECTORS: readonly TieredDetector[] = [
  'no-progress',
  'repeat',
  'ping-pong',
  'cycle',
  'empty-streak',
  'retry-storm',
  'failure-repeat',
  'same-error',
  'pending-resubmit',
  'pending-poll',
  'same-answer',
  'revisit',
];

type DetectorThresholds = Record<TieredDetector, Thresholds>;

const t = (warning: number, critical: number, brk: number): Thresholds => ({ warning, critical, break: brk });

/**
 * Preset thresholds. `balanced` is tuned so that legitimate work (batches,
 * retries against an outage, polling a service that changes state, edit-test
 * cycles whose results move) produces no verdict, while a loop is nudged by
 * its second repeat. Cycles count full periods, `same-error` distinct
 * argument variants, the rest calls. Waiting on a job that exists
 * (`pending-poll`) only ever warns by default: how long a job may take is
 * the fuses' business (`maxRunMs`, `maxToolCalls`).
 */
export const PRESETS: Record<PresetName, DetectorThresholds> = {
  conservative: {
    'no-progress': t(4, 7, 11),
    repeat: t(5, 8, 12),
    'ping-pong': t(3, 4, 6),
    cycle: t(3, 4, 5),
    'empty-streak': t(7, 12, 18),
    'retry-storm': t(10, 15, 20),
    'failure-repeat': t(4, 5, 8),
    'same-error': t(6, 9, 13),
    'pending-resubmit': t(4, 7, 11),
    'pending-poll': t(15, 0, 0),
    'same-answer': t(5, 0, 0),
    revisit: t(5, 0, 0),
  },
  balanced: {
    'no-progress': t(3, 5, 8),
    repeat: t(4, 6, 9),
    'ping-pong': t(2, 3, 4),
    cycle: t(2, 3, 4),
    'empty-streak': t(7, 9, 14),
    'retry-storm': t(8, 12, 16),
    'failure-repeat': t(3, 4, 6),
    'same-error': t(5, 7, 10),
    'pending-resubmit': t(3, 5, 8),
    'pending-poll': t(10, 0, 0),
    'same-answer': t(4, 0, 0),
    revisit: t(3, 0, 0),
  },
  aggressive: {
    'no-progress': t(2, 4, 6),
    repeat: t(3, 5, 7),
    'ping-pong': t(2, 3, 3),
    cycle: t(2, 3, 3),
    'empty-streak': t(4, 7, 10),
    'retry-storm': t(6, 9, 12),
    'failure-repeat': t(2, 3, 5),
    'same-error': t(3, 5, 7),
    'pending-resubmit': t(2, 4, 6),
    'pending-poll': t(6, 12, 20),
    'same-answer': t(3, 6, 10),
    revisit: t(3, 0, 0),
  },
};
