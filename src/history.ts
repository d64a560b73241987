import type { Outcome } from './types.js';

/**
 * Compact per-run history: a ring of the last `window` tool calls kept in one
 * Uint32Array, so a tracked run costs a fixed ~1.2 KB however long it lives
 * (the bench measures it). Hashes are stored as two 32-bit halves of their 16
 * hex chars; tool names are interned.
 */

const F_ARGS_HI = 0;
const F_ARGS_LO = 1;
const F_NORM_HI = 2;
const F_NORM_LO = 3;
const F_RES_HI = 4;
const F_RES_LO = 5;
/** Tool id in the high 24 bits, flags (outcome, blocked, …) in the low 8: one word for both keeps a run under 2 KB. */
const F_TOOL_FLAGS = 6;
const F_SHAPE = 7;
const SLOT = 8;

const OUTCOME_CODES: Record<Outcome, number> = { ok: 0, empty: 1, error: 2, pending: 3 };
const OUTCOME_NAMES: readonly Outcome[] = ['ok', 'empty', 'error', 'pending'];
const FLAG_BLOCKED = 4;
const FLAG_INFORMATIVE = 8;
const FLAG_NAMES_ID = 16;
const FLAG_SPACED = 32;
const TOOL_AND_OUTCOME = 0xffffff03;
/**
 * A call that starts this long after the previous one started, or lasts this
 * long, comes at a waiting pace (a poll every minute, a long poll that timed
 * out, `wait(120)`).
 */
export const SPACED_MS = 30_000;

/**
 * Longest cycle period looked for. The counters compare each call with the
 * one p steps earlier as calls arrive, so only that one call must still be in
 * the window: a paging sweep of 20 pages restarted is caught, where a
 * detector that needs two whole periods in view would miss it.
 */
export function maxPeriod(window: number): number {
  return window - 1;
}

/** One call as the history stores it; hashes are 16 hex chars. */
export interface HistoryEntry {
  tool: string;
  argsHash: string;
  normArgsHash: string;
  resultHash: string;
  outcome: Outcome;
  blocked: boolean;
  startMs: number;
  endMs: number;
  /** Hash of the arguments with digits masked, for `empty` calls (tells guessed ids from exploration). */
  shapeHash?: string;
  /** The result says something specific (not a bare acknowledgement). */
  informative?: boolean;
  /** The arguments name a thing by its id (a `pending` call with one polls a job instead of submitting it). */
  namesId?: boolean;
}

/** Interns tool names to small integers shared by every run. */
export class ToolNames {
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];

  id(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.names.push(name);
      this.ids.set(name, id);
    }
    return id;
  }

  name(id: number): string {
    return this.names[id] ?? '';
  }
}

/** Hex digit values by char code (-1 for anything else); faster than parseInt on a slice, which allocates. */
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX['0123456789abcdef'.charCodeAt(i)] = i;
for (let i = 10; i < 16; i++) HEX['ABCDEF'.charCodeAt(i - 10)] = i;

/** 32 bits from 8 hex chars at `from`; a malformed hash still yields a stable number. */
function word(hash: string, from: number): number {
  let v = 0;
  for (let i = from; i < from + 8; i++) {
    const c = hash.charCodeAt(i);
    v = (v << 4) | (c < 128 ? HEX[c]! & 15 : c & 15);
  }
  return v >>> 0;
}
function hi(hash: string): number {
  return word(hash, 0);
}
function lo(hash: string): number {
  return word(hash, 8);
}
function hex(h: number, l: number): string {
  return h.toString(16).padStart(8, '0') + l.toString(16).padStart(8, '0');
}

/**
 * The ring plus streaming periodicity counters: `exactRun[p]` is how many
 * consecutive latest calls equal (call and result) the call p steps earlier,
 * `normRun[p]` the same with normalised arguments. A cycle of period p has
 * repeated once in full when its counter reaches p.
 */
export class RunHistory {
  /** Calls recorded so far; the latest call's step. */
  total = 0;
  /** Epoch ms of the first call, and of the latest activity (for TTL eviction). */
  firstMs = 0;
  lastMs = 0;
  private lastStartMs = 0;
  /** earlierSameCalls() of the latest call, shared by the detectors that ask (0: not yet counted). */
  private sameCallsStep = 0;
  private sameCalls = 0;
  readonly window: number;
  readonly periods: number;
  private readonly buf: Uint32Array;
  private readonly countersAt: number;

  constructor(window: number) {
    this.window = window;
    this.periods = maxPeriod(window);
    this.countersAt = window * SLOT;
    this.buf = new Uint32Array(window * SLOT + 2 * (this.periods + 1));
  }

  /** Calls currently held (at most the window). */
  get size(): number {
    return this.total < this.window ? this.total : this.window;
  }

  /** Offset of the call `back` steps before the latest (0 = latest). */
  private at(back: number): number {
    return ((this.total - 1 - back) % this.window) * SLOT;
  }

  push(tool: number, e: HistoryEntry): void {
    // Waiting shows as a start half a minute after the last one, or as a call that itself took that long (a long poll,
    // a wait tool, a slow run the agent was asked to repeat).
    const spaced = (this.total > 0 && e.startMs - this.lastStartMs >= SPACED_MS) || e.endMs - e.startMs >= SPACED_MS;
    if (this.total === 0) this.firstMs = e.startMs;
    this.lastMs = e.endMs;
    this.lastStartMs = e.startMs;
    this.total++;
    const o = this.at(0);
    const b = this.buf;
    const argsHi = hi(e.argsHash);
    const argsLo = lo(e.argsHash);
    b[o + F_ARGS_HI] = argsHi;
    b[o + F_ARGS_LO] = argsLo;
    // Most arguments normalise to themselves (the very same string): parse once.
    const sameNorm = e.normArgsHash === e.argsHash;
    b[o + F_NORM_HI] = sameNorm ? argsHi : hi(e.normArgsHash);
    b[o + F_NORM_LO] = sameNorm ? argsLo : lo(e.normArgsHash);
    b[o + F_RES_HI] = hi(e.resultHash);
    b[o + F_RES_LO] = lo(e.resultHash);
    const flags =
      OUTCOME_CODES[e.outcome] | (e.blocked ? FLAG_BLOCKED : 0) | (e.informative ? FLAG_INFORMATIVE : 0) | (e.namesId ? FLAG_NAMES_ID : 0) | (spaced ? FLAG_SPACED : 0);
    b[o + F_TOOL_FLAGS] = ((tool << 8) | flags) >>> 0;
    b[o + F_SHAPE] = e.shapeHash === undefined ? 0 : hi(e.shapeHash);
    this.updatePeriodicity();
  }

  private updatePeriodicity(): void {
    const b = this.buf;
    const exact = this.countersAt;
    const norm = exact + this.periods + 1;
    const latest = this.at(0);
    // Locals: writes into the same typed array keep V8 from caching these reads.
    // Same tool and outcome: the tool bits and the two outcome bits of the shared word.
    const toolOutcome = b[latest + F_TOOL_FLAGS]! & TOOL_AND_OUTCOME;
    const resHi = b[latest + F_RES_HI]!;
    const resLo = b[latest + F_RES_LO]!;
    const normHi = b[latest + F_NORM_HI]!;
    const normLo = b[latest + F_NORM_LO]!;
    const argsHi = b[latest + F_ARGS_HI]!;
    const argsLo = b[latest + F_ARGS_LO]!;
    const reach = Math.min(this.periods, this.total - 1);
    let other = latest;
    for (let p = 1; p <= reach; p++) {
      // Step one slot back through the ring instead of a modulo per period.
      other = other === 0 ? (this.window - 1) * SLOT : other - SLOT;
      const sameNorm =
        (b[other + F_TOOL_FLAGS]! & TOOL_AND_OUTCOME) === toolOutcome &&
        b[other + F_RES_HI] === resHi &&
        b[other + F_RES_LO] === resLo &&
        b[other + F_NORM_HI] === normHi &&
        b[other + F_NORM_LO] === normLo;
      const sameExact = sameNorm && b[other + F_ARGS_HI] === argsHi && b[other + F_ARGS_LO] === argsLo;
      b[exact + p] = sameExact ? b[exact + p]! + 1 : 0;
      b[norm + p] = sameNorm ? b[norm + p]! + 1 : 0;
    }
    for (let p = reach + 1; p <= this.periods; p++) {
      b[exact + p] = 0;
      b[norm + p] = 0;
    }
  }

  /** Consecutive latest calls equal to the call p steps before them (exact arguments). */
  exactRun(p: number): number {
    return this.buf[this.countersAt + p]!;
  }

  /** The same with normalised arguments. */
  normRun(p: number): number {
    return this.buf[this.countersAt + this.periods + 1 + p]!;
  }

  toolId(back: number): number {
    return this.buf[this.at(back) + F_TOOL_FLAGS]! >>> 8;
  }

  outcome(back: number): Outcome {
    return OUTCOME_NAMES[this.buf[this.at(back) + F_TOOL_FLAGS]! & 3]!;
  }

  informative(back: number): boolean {
    return (this.buf[this.at(back) + F_TOOL_FLAGS]! & FLAG_INFORMATIVE) !== 0;
  }

  /** Did the call `back` steps ago come at a waiting pace (see SPACED_MS)? */
  spaced(back: number): boolean {
    return (this.buf[this.at(back) + F_TOOL_FLAGS]! & FLAG_SPACED) !== 0;
  }

  /** Did each of the latest `calls` calls (at least one) start at least SPACED_MS after the call before it? */
  allSpaced(calls: number): boolean {
    for (let back = 0; back < calls; back++) if (!this.spaced(back)) return false;
    return calls > 0;
  }

  namesId(back: number): boolean {
    return (this.buf[this.at(back) + F_TOOL_FLAGS]! & FLAG_NAMES_ID) !== 0;
  }

  /** Same tool and exact arguments. */
  sameCall(a: number, b: number): boolean {
    const x = this.at(a);
    const y = this.at(b);
    const buf = this.buf;
    return (
      buf[x + F_TOOL_FLAGS]! >>> 8 === buf[y + F_TOOL_FLAGS]! >>> 8 &&
      buf[x + F_ARGS_HI] === buf[y + F_ARGS_HI] &&
      buf[x + F_ARGS_LO] === buf[y + F_ARGS_LO]
    );
  }

  /** Same argument shape (digits masked); calls without a recorded shape match each other. */
  sameShape(a: number, b: number): boolean {
    return this.buf[this.at(a) + F_SHAPE] === this.buf[this.at(b) + F_SHAPE];
  }

  /** The stored shape: the first 32 bits of its hash (0 when none was recorded). */
  shapeHash(back: number): number {
    return this.buf[this.at(back) + F_SHAPE]!;
  }

  /**
   * The stored shape as a hash that `push` stores back unchanged: its 32 bits
   * in the high half (where `push` reads them), zeros after. A blocked call
   * recorded with it keeps the shape of the calls it stands for.
   */
  shapeHashText(back: number): string {
    return hex(this.buf[this.at(back) + F_SHAPE]!, 0);
  }

  /** Earlier calls in the window with the latest call's tool and arguments: one tight pass over the ring, once per call. */
  earlierSameCalls(): number {
    if (this.sameCallsStep === this.total) return this.sameCalls;
    const b = this.buf;
    const latest = this.at(0);
    const tool = b[latest + F_TOOL_FLAGS]! >>> 8;
    const argsHi = b[latest + F_ARGS_HI];
    const argsLo = b[latest + F_ARGS_LO];
    let n = 0;
    let o = latest;
    for (let back = 1; back < this.size; back++) {
      o = o === 0 ? (this.window - 1) * SLOT : o - SLOT;
      if (b[o + F_ARGS_LO] === argsLo && b[o + F_ARGS_HI] === argsHi && b[o + F_TOOL_FLAGS]! >>> 8 === tool) n++;
    }
    this.sameCallsStep = this.total;
    this.sameCalls = n;
    return n;
  }

  /** Had the tool of the call `back` steps ago already given that answer, earlier in the window? */
  answeredBefore(back: number): boolean {
    const tool = this.toolId(back);
    for (let older = back + 1; older < this.size; older++) {
      if (this.toolId(older) === tool && this.sameResult(back, older)) return true;
    }
    return false;
  }

  /** Was the call `back` steps ago (same tool and arguments) made before, earlier in the window? */
  calledBefore(back: number): boolean {
    for (let older = back + 1; older < this.size; older++) if (this.sameCall(back, older)) return true;
    return false;
  }

  /** Has the tool of the call `back` steps ago answered anything else earlier in the window? */
  toolAnswersVary(back: number): boolean {
    const tool = this.toolId(back);
    for (let older = back + 1; older < this.size; older++) {
      if (this.toolId(older) === tool && !this.sameResult(back, older)) return true;
    }
    return false;
  }

  sameResult(a: number, b: number): boolean {
    const x = this.at(a);
    const y = this.at(b);
    const buf = this.buf;
    return buf[x + F_RES_HI] === buf[y + F_RES_HI] && buf[x + F_RES_LO] === buf[y + F_RES_LO];
  }

  /** Is the result of the call `back` steps ago this one (16 hex)? Compares the stored words: no string is built. */
  resultIs(back: number, hash: string): boolean {
    const x = this.at(back);
    return this.buf[x + F_RES_HI] === hi(hash) && this.buf[x + F_RES_LO] === lo(hash);
  }

  argsHash(back: number): string {
    const x = this.at(back);
    return hex(this.buf[x + F_ARGS_HI]!, this.buf[x + F_ARGS_LO]!);
  }

  normArgsHash(back: number): string {
    const x = this.at(back);
    return hex(this.buf[x + F_NORM_HI]!, this.buf[x + F_NORM_LO]!);
  }

  resultHash(back: number): string {
    const x = this.at(back);
    return hex(this.buf[x + F_RES_HI]!, this.buf[x + F_RES_LO]!);
  }
}

