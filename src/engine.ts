import { CompletionGate, type FinishAttempt } from './completion-gate.js';
import { DETECTORS, type Detector, type DetectorContext, type Evidence } from './detectors/index.js';
import { MODEL_DETECTORS, ModelHistory, type ModelDetectorContext, type ModelEvidence, type ModelTurn } from './detectors/model-turns.js';
import { RunHistory, type HistoryEntry } from './history.js';
import { ListedItems } from './listed-items.js';
import { StandingAsk } from './standing-ask.js';
import { ToolNames } from './tool-names.js';
import type { ResolvedDetectionOptions } from './options.js';
import type { SubjectFunction, SubjectRule } from './subjects.js';
import { LEVEL_RANK, NO_DECISION, Policy, RANKED_LEVELS, type Armed, type Decision } from './policy.js';
import type { Level } from './types.js';
import type { DetectorName } from './config.js';
import { FlaggedCalls } from './flagged-calls.js';

/** Why a run was stopped. */
export interface StopInfo {
  /** The detector that broke the run, or `onLoop` / `manual` when code stopped it. */
  reason: string;
  step: number;
  evidence: Evidence | undefined;
}

/** The breaker's answer before a call runs. */
export interface PreVerdict {
  action: 'block' | 'break';
  level: Level;
  /** The evidence as it will stand once this call is counted. */
  evidence: Evidence | undefined;
  /** What the blocked call is recorded as. */
  armed: Armed | undefined;
  stop: StopInfo | undefined;
}

/** The engine's answer to one model response. */
export interface ModelDecision {
  level: Level | undefined;
  /** What the model should be told about (the evidence behind the level, or a notice below warning); none for a run already stopped. */
  evidence: ModelEvidence | undefined;
}

const NO_MODEL_DECISION: ModelDecision = Object.freeze({ level: undefined, evidence: undefined }) as ModelDecision;

/** A run's state as the verdict API reports it (JSON-serialisable). */
export interface RunVerdict {
  runKey: string;
  toolCalls: number;
  level: Level | null;
  detections: number;
  stopped: boolean;
  stopReason: string | null;
  last: { detector: string; level: Level; step: number; count: number; period: number; tool: string } | null;
  /** Subjects of failed checks no later success cleared (the completion gate); only when there are some. */
  unresolved?: string[];
}

class RunState {
  readonly history: RunHistory;
  stopped: StopInfo | undefined;
  armed: Armed[] = NONE_ARMED;
  maxRank = 0;
  detections = 0;
  tokens = 0;
  /** Last activity, and when the run last moved to the recent end of the table. */
  touchedMs = 0;
  movedMs = 0;
  noticeKey = '';
  noticeStep = 0;
  noticeRank = 0;
  last: RunVerdict['last'] = null;
  /** The run's model responses, once it has had one. */
  model: ModelHistory | undefined;
  outputBudgetTold = false;
  /** The run's own output-token budget, when it was given one. */
  modelContext: ModelDetectorContext | undefined;
  /** A message about the model side waiting for the next tool result to carry it. */
  notice: string | undefined;
  /** Failed checks by subject, once the run has had a call with a subject. */
  gate: CompletionGate | undefined;
  /** An adapter saw the framework's own turn limit end the run. */
  turnLimit = false;
  /** What the run was shown, once a call needed it (src/listed-items.ts). */
  listed: ListedItems | undefined;
  /** The run's conversation, once it has had a conversation turn (src/standing-ask.ts). */
  asks: StandingAsk | undefined;
  /** The calls the run drew verdicts on, once it has drawn one. */
  flagged: FlaggedCalls | undefined;
  /** The handles the run's latest pending answer handed it (fingerprint handlesIn). */
  handles: readonly string[] = NO_HANDLES;

  constructor(window: number) {
    this.history = new RunHistory(window);
  }
}

const NONE_ARMED: Armed[] = [];
const NO_HANDLES: readonly string[] = [];

/** The lowest of tiers where 0 is off; 0 when all are. */
function lowestActive(...tiers: number[]): number {
  const active = tiers.filter((n) => n > 0);
  return active.length === 0 ? 0 : Math.min(...active);
}
/** What `last.tool` names when the verdict came from a model response. */
export const MODEL_TOOL = '(model)';
/** The detector name of the completion gate's warning. */
export const COMPLETION_GATE: DetectorName = 'completion-gate';
const NO_EVIDENCE: Evidence[] = Object.freeze([]) as unknown as Evidence[];
const TOUCH_GRANULARITY_MS = 1000;

/**
 * The detection engine: per-run history → detectors → policy → breaker
 * state. Pure computation with no OpenTelemetry dependency, shared by the
 * in-process span processor and the collector.
 */
export class LoopEngine {
  readonly options: ResolvedDetectionOptions;
  readonly tools = new ToolNames();
  private readonly policy: Policy;
  private readonly runs = new Map<string, RunState>();
  private readonly now: () => number;
  private readonly evidenceBuffer: Evidence[] = [];
  private readonly toolName = (id: number): string => this.tools.name(id);
  /** One context object reused for every call: detectors run synchronously and never keep it. */
  private readonly detectorContext: DetectorContext & { tokens: number };
  /** The detectors with a family left enabled: one whose every family is disabled would only report evidence the policy drops. */
  private readonly detectors: readonly Detector[];
  private readonly modelContext: ModelDetectorContext;
  private readonly modelEvidence: ModelEvidence[] = [];
  /** `disable: ['completion-gate']` leaves it off. */
  readonly gateOn: boolean;
  private sweepCountdown = 0;
  /** Runs forgotten because of the cap or the idle TTL. */
  evictions = 0;
  onEvict: ((runKey: string) => void) | undefined;

  constructor(options: ResolvedDetectionOptions, now: () => number = Date.now) {
    this.options = options;
    this.policy = new Policy(options);
    this.now = now;
    const policy = this.policy;
    const toolName = this.toolName;
    this.detectorContext = {
      maxToolCalls: options.maxToolCalls,
      maxRunMs: options.maxRunMs,
      maxTokens: options.maxTokens,
      tokens: 0,
      floor: (tiers, toolId) => policy.floorFor(tiers, toolId, toolName),
    };
    this.modelContext = {
      maxOutputTokens: this.outputBudget(options.maxOutputTokens),
      outputTokenNoticeShare: options.outputTokenNoticePercent / 100,
      minContinuations: options.minContinuations,
      maxTruncations: options.maxTruncations,
      repeatedAnswerFloor: lowestActive(options.repeatedAnswerWarning, options.maxRepeatedAnswers),
      chanting: options.maxChantingResponses > 0,
    };
    this.detectors = DETECTORS.filter((d) => d.reports.some((name) => !options.disabled.has(name))).map((d) => d.run);
    this.gateOn = !options.disabled.has(COMPLETION_GATE);
  }

  get activeRuns(): number {
    return this.runs.size;
  }

  isIgnored(tool: string): boolean {
    return this.options.tools[tool]?.ignore === true;
  }

  /** Checks a call before it runs: is the run stopped, or does the call continue a pattern armed for blocking? */
  precheck(runKey: string, tool: string, argsHash: string, normArgsHash: string): PreVerdict | undefined {
    const run = this.runs.get(runKey);
    if (!run || (run.stopped === undefined && (run.armed.length === 0 || this.isIgnored(tool)))) return undefined;
    // A run idle past the TTL is forgotten at its next call, as the sweep would have done (see touch).
    if (this.idle(run, this.now())) return undefined;
    if (run.stopped) return { action: 'break', level: 'break', evidence: run.stopped.evidence, armed: undefined, stop: run.stopped };
    const toolId = this.tools.id(tool);
    let best: Armed | undefined;
    for (const a of run.armed) {
      const n = a.next;
      const hit =
        n.match === 'any' ||
        (n.toolId === toolId &&
          (n.match === 'tool' || (n.match === 'call' ? n.argsHash === argsHash : n.normArgsHash === normArgsHash)));
      if (hit && (!best || a.rank > best.rank)) best = a;
    }
    if (!best) return undefined;
    const evidence = { ...best.evidence, score: best.next.score, count: best.evidence.count + 1 };
    return { action: best.rank === 3 ? 'break' : 'block', level: RANKED_LEVELS[best.rank]!, evidence, armed: best, stop: undefined };
  }

  /** Records a finished (or blocked) call and decides on it. */
  record(runKey: string, entry: HistoryEntry): Decision {
    if (this.isIgnored(entry.tool)) return NO_DECISION;
    const run = this.touch(runKey);
    const h = run.history;
    const toolId = this.tools.id(entry.tool);
    if (entry.turn !== undefined) entry.restatedAsk = (run.asks ??= new StandingAsk()).turn(entry.turn.message, entry.turn.reply, entry.turn.argsText);
    // A lookup made again and answered alike between two turns interrupts nothing; any other call does.
    else if (run.asks?.waiting === true && !entry.blocked && !h.answeredAlike(toolId, entry.argsHash, entry.resultHash)) run.asks.interrupt();
    h.push(toolId, entry);
    run.model?.acted();
    // A run whose checks are not recorded has no open failure: no verify message, no completed_unverified.
    if (entry.subjects !== undefined && !entry.blocked && this.gateOn) (run.gate ??= new CompletionGate()).record(entry.subjects, entry.checkOutcome ?? entry.outcome, entry.subjectsNamed === true);
    // A stopped run's later calls (refused in-process, or made anyway by a remote agent) stay at break, but the break was reported once.
    if (run.stopped) return { step: h.total, level: 'break', evidence: run.stopped.evidence ? [run.stopped.evidence] : [], notify: false };

    const found = this.evidenceBuffer;
    // Most calls leave it empty: setting an array's length is a runtime call even when it changes nothing.
    if (found.length !== 0) found.length = 0;
    const ctx = this.detectorContext;
    ctx.tokens = run.tokens;
    for (const detect of this.detectors) detect(h, ctx, found);
    const { ranked, rank: judgedRank, armed, period } = this.policy.judge(found, this.toolName);
    run.armed = armed.length === 0 ? NONE_ARMED : armed;
    if (judgedRank === 0) {
      run.flagged?.quiet();
      return { step: h.total, level: undefined, evidence: NO_EVIDENCE, notify: false };
    }

    const top = ranked[0]!;
    const ignored = (run.flagged ??= new FlaggedCalls()).flag(toolId, entry.argsHash, h.total, judgedRank === LEVEL_RANK.critical, period);
    const rank = ignored ? this.policy.onIgnored(judgedRank, top, this.tools.name(top.toolId)) : judgedRank;
    const level = RANKED_LEVELS[rank]!;
    const notify = this.shouldNotify(run, top, rank);
    if (notify) run.detections++;
    if (rank > run.maxRank) run.maxRank = rank;
    run.last = {
      detector: top.detector,
      level,
      step: h.total,
      count: top.count,
      period: top.period,
      tool: this.tools.name(top.toolId),
    };
    if (rank === 3 && !run.stopped) run.stopped = { reason: top.detector, step: h.total, evidence: top };
    return { step: h.total, level, evidence: ranked, notify };
  }

  /** Records a model response (an LLM span) and decides on it; model responses are not tool calls, so the step count stays. */
  recordModel(runKey: string, turn: ModelTurn): ModelDecision {
    const run = this.touch(runKey);
    const h = (run.model ??= new ModelHistory());
    h.push(turn, this.options.minContinuationTokens);
    if (run.stopped) return { level: 'break', evidence: undefined };
    const found = this.modelEvidence;
    found.length = 0;
    const ctx = run.modelContext ?? this.modelContext;
    for (const detect of MODEL_DETECTORS) detect(h, ctx, found);
    // The budget notice is given once; after it, only the budget's break counts (and another message may be given instead).
    const judged = run.outputBudgetTold ? found.filter((e) => e.detector !== 'budget' || e.score >= 1) : found;
    const { rank, top } = this.policy.judgeModel(judged);
    if (top === undefined) return NO_MODEL_DECISION;
    if (top.detector === 'budget') run.outputBudgetTold = true;
    const level = RANKED_LEVELS[rank];
    if (level !== undefined) {
      run.detections++;
      if (rank > run.maxRank) run.maxRank = rank;
      run.last = { detector: top.detector, level, step: run.history.total, count: Math.floor(top.score), period: 1, tool: MODEL_TOOL };
      if (rank === 3) run.stopped = { reason: top.detector, step: run.history.total, evidence: undefined };
    }
    return { level, evidence: top };
  }

  /**
   * The run is about to finish (a final answer, the framework's last step):
   * with failed checks still open, the first attempt is a warning that asks
   * the model to verify (`completion-gate`), later ones are only recorded.
   */
  finishAttempt(runKey: string): FinishAttempt {
    const run = this.runs.get(runKey);
    const gate = run?.gate;
    if (!run || !gate || run.stopped) return { ask: false, subjects: [] };
    const attempt = gate.finish();
    if (attempt.ask) {
      run.detections++;
      if (run.maxRank < LEVEL_RANK.warning) run.maxRank = LEVEL_RANK.warning;
      run.last = { detector: COMPLETION_GATE, level: 'warning', step: run.history.total, count: attempt.subjects.length, period: 1, tool: MODEL_TOOL };
    }
    return attempt;
  }

  /** Has the run a failed check still open? (Only then can a success clear something.) */
  hasOpenChecks(runKey: string): boolean {
    return (this.runs.get(runKey)?.gate?.size ?? 0) > 0;
  }

  /** The subjects of the run's failed checks that no later success cleared, as spans may carry them (CompletionGate.exported). */
  exportedUnresolved(runKey: string): string[] {
    return this.runs.get(runKey)?.gate?.exported ?? [];
  }

  /** The framework's own turn limit ended the run (an adapter saw it). */
  reachTurnLimit(runKey: string): void {
    this.touch(runKey).turnLimit = true;
  }

  reachedTurnLimit(runKey: string): boolean {
    return this.runs.get(runKey)?.turnLimit === true;
  }

  /** The tool's own rule for the subjects of its checks (`tools.<name>.subject`). */
  subjectRule(tool: string): SubjectRule | SubjectFunction | undefined {
    return this.options.tools[tool]?.subject;
  }

  /** Whether the run's latest model response was cut off by the output limit (a tool call after it may be cut in half). */
  afterTruncation(runKey: string): boolean {
    return (this.runs.get(runKey)?.model?.truncations ?? 0) > 0;
  }

  /** Gives a run its own output-token budget (0: none), instead of the `maxOutputTokens` option. */
  setOutputBudget(runKey: string, maxOutputTokens: number): void {
    this.touch(runKey).modelContext = { ...this.modelContext, maxOutputTokens: this.outputBudget(maxOutputTokens) };
  }

  /** The output-token fuse is a `budget` fuse: `disable: ['budget']` turns it off (and diminishing returns, which needs a budget, with it). */
  private outputBudget(maxOutputTokens: number): number {
    return this.options.disabled.has('budget') ? 0 : maxOutputTokens;
  }

  /** Leaves a message about the model side for the next tool result of the run. */
  setNotice(runKey: string, text: string): void {
    const run = this.runs.get(runKey);
    if (run) run.notice = text;
  }

  /** The waiting message, once. */
  takeNotice(runKey: string): string | undefined {
    const run = this.runs.get(runKey);
    const text = run?.notice;
    if (run) run.notice = undefined;
    return text;
  }

  /** The handles the run's latest pending answer handed it. */
  handedHandles(runKey: string): readonly string[] {
    return this.runs.get(runKey)?.handles ?? NO_HANDLES;
  }

  /** A pending answer handed the run these handles (they replace the last answer's). */
  noteHandles(runKey: string, handles: readonly string[]): void {
    (this.runs.get(runKey) ?? this.touch(runKey)).handles = handles;
  }

  /** The call being built is about to be recorded: a run's first call (often the listing itself) opens it here. */
  listedItems(runKey: string): ListedItems {
    const run = this.runs.get(runKey) ?? this.touch(runKey);
    run.listed ??= new ListedItems();
    return run.listed;
  }

  foundNothingLately(runKey: string): boolean {
    return this.runs.get(runKey)?.history.foundNothingLately() ?? false;
  }

  /**
   * Does this answer (or the set of items it lists) repeat the run's latest call, of the same tool? Only then
   * is the argument shape worth computing (same-answer tells different
   * subjects from reworded questions by it).
   */
  repeatsLastAnswer(runKey: string, tool: string, resultHash: string, items: number): boolean {
    const h = this.runs.get(runKey)?.history;
    return h !== undefined && h.size > 0 && h.toolId(0) === this.tools.id(tool) && (h.resultIs(0, resultHash) || h.itemsAre(0, items));
  }

  /**
   * Did a call of the tool with other arguments get this very answer earlier
   * in the run's window? Only then may this call be a resend in other words,
   * worth its word signature and digit shape.
   */
  answeredOtherArgs(runKey: string, tool: string, argsHash: string, resultHash: string): boolean {
    const h = this.runs.get(runKey)?.history;
    return h !== undefined && h.answeredOtherArgs(this.tools.id(tool), argsHash, resultHash);
  }

  /** Adds LLM token usage (gen_ai.usage.*) to a run's budget. */
  addTokens(runKey: string, tokens: number): void {
    if (tokens > 0) this.touch(runKey).tokens += tokens;
  }

  /**
   * Moves a run to another key: a collector learns a run's conversation id
   * from its root span, which ends (and arrives) after its tool calls.
   * Nothing happens when the target key is already tracked.
   */
  rekey(from: string, to: string): void {
    const run = this.runs.get(from);
    if (!run || this.runs.has(to)) return;
    this.runs.delete(from);
    this.runs.set(to, run);
  }

  /** Stops a run by decision of code outside the detectors (an `onLoop` override, an operator). */
  stop(runKey: string, reason: string, evidence?: Evidence): StopInfo {
    const run = this.touch(runKey);
    run.maxRank = LEVEL_RANK.break;
    run.stopped ??= { reason, step: run.history.total, evidence };
    return run.stopped;
  }

  /** Lifts a stop (an `onLoop` override answered 'continue' to a break). */
  resume(runKey: string): void {
    const run = this.runs.get(runKey);
    if (run) run.stopped = undefined;
  }

  isStopped(runKey: string): StopInfo | undefined {
    return this.runs.get(runKey)?.stopped;
  }

  /** A tracked run's step counter (0 when untracked). */
  steps(runKey: string): number {
    return this.runs.get(runKey)?.history.total ?? 0;
  }

  verdict(runKey: string): RunVerdict | undefined {
    const run = this.runs.get(runKey);
    if (!run) return undefined;
    const verdict: RunVerdict = {
      runKey,
      toolCalls: run.history.total,
      level: RANKED_LEVELS[run.maxRank] ?? null,
      detections: run.detections,
      stopped: run.stopped !== undefined,
      stopReason: run.stopped?.reason ?? null,
      last: run.last,
    };
    const unresolved = run.gate?.open;
    if (unresolved !== undefined && unresolved.length > 0) verdict.unresolved = unresolved;
    return verdict;
  }

  /** Forgets a run (its root span ended, or it was evicted). */
  forget(runKey: string): void {
    this.runs.delete(runKey);
  }

  /** Evicts runs idle past the TTL. Also runs by itself every few hundred calls. */
  sweep(): void {
    const now = this.now();
    const cutoff = now - this.options.runTtlMs;
    for (const [key, run] of this.runs) {
      // Map order is by last move, and a run's activity is never older than its move: past the cutoff, all are live.
      if (run.movedMs > cutoff) break;
      if (this.idle(run, now)) this.evict(key);
    }
  }

  /** Has the run been idle for the TTL or longer? */
  private idle(run: RunState, now: number): boolean {
    return run.touchedMs <= now - this.options.runTtlMs;
  }

  private evict(key: string): void {
    this.runs.delete(key);
    this.evictions++;
    this.onEvict?.(key);
  }

  private touch(runKey: string): RunState {
    const now = this.now();
    let run = this.runs.get(runKey);
    // A run idle past the TTL starts afresh whether or not a sweep came first: the sweep runs only every few hundred
    // calls in process, so without this a lone agent's pause of hours would keep its old window, and a collector's
    // (swept each second) would not.
    if (run && this.idle(run, now)) {
      this.evict(runKey);
      run = undefined;
    }
    if (run) {
      // Moving a run to the recent end costs a delete and an insert: once a second is recent enough for LRU and TTL.
      if (now - run.movedMs >= TOUCH_GRANULARITY_MS) {
        this.runs.delete(runKey);
        this.runs.set(runKey, run);
        run.movedMs = now;
      }
    } else {
      run = new RunState(this.options.window);
      while (this.runs.size >= this.options.maxRuns) this.evict(this.runs.keys().next().value as string);
      this.runs.set(runKey, run);
      run.movedMs = now;
    }
    run.touchedMs = now;
    if (--this.sweepCountdown <= 0) {
      this.sweepCountdown = 256;
      this.sweep();
    }
    return run;
  }

  /** Critical and break always reach the model; a warning again only after the cooldown or for a new pattern. */
  private shouldNotify(run: RunState, top: Evidence, rank: number): boolean {
    const step = run.history.total;
    const key = `${top.detector}|${top.since}|${top.period}`;
    const fresh =
      rank > LEVEL_RANK.warning ||
      rank > run.noticeRank ||
      key !== run.noticeKey ||
      step - run.noticeStep >= this.options.warningCooldown;
    if (fresh) {
      run.noticeKey = key;
      run.noticeStep = step;
      run.noticeRank = rank;
    }
    return fresh;
  }
}
