import { hashText } from './fingerprint/index.js';
import { WHOLE_SUITE } from './subjects.js';
import type { Outcome } from './types.js';

/**
 * How a returned result went as a check, by the exit code it reports: a
 * nonzero integer failed (`pytest` with a failing test, `curl -f` on a 500),
 * zero passed; undefined when it reports none. A shell tool returns its
 * command's failure as an ordinary result, so the call's outcome says `ok`;
 * only the completion gate reads this, the loop detectors keep the outcome.
 *
 * The members by which a shell tool's result reports its command's exit
 * status, as coding agents spell them (`exit_code`: OpenHands, SWE-agent;
 * `returncode`: mini-SWE-agent, Python's subprocess; `exitCode`: Node's
 * child_process wrappers), first found wins. Each is read by its own name:
 * this runs on every returned result, and a loop over the names made each
 * read a generic keyed look-up (about 80 ns a call more).
 */
export function checkOutcome(result: unknown): 'error' | 'ok' | undefined {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return undefined;
  const r = result as Record<string, unknown>;
  return (
    exitStatus(r['exit_code']) ??
    exitStatus(r['exitCode']) ??
    exitStatus(r['returncode']) ??
    exitStatus(r['return_code']) ??
    exitStatus(r['exit_status']) ??
    exitStatus(r['exitStatus']) ??
    exitStatus(r['exit'])
  );
}

function exitStatus(code: unknown): 'error' | 'ok' | undefined {
  return Number.isInteger(code) ? (code === 0 ? 'ok' : 'error') : undefined;
}

/** Unresolved subjects kept per run: the oldest is dropped beyond it, so a run's state stays bounded. */
const MAX_UNRESOLVED = 32;

/** What the gate answers when a run is about to finish. */
export interface FinishAttempt {
  /** Ask the model to verify before finishing (the first finish with unresolved failures only). */
  ask: boolean;
  /** The subjects of the failed checks no later success cleared, oldest first. */
  subjects: string[];
}

/**
 * The completion gate of one run: failed checks by subject, cleared by a
 * later success on the same subject, and what happened when the run tried
 * to finish with some still open (asked once; later finishes are recorded).
 */
export class CompletionGate {
  /** Open subjects, oldest first, and whether their name may leave the process (the arguments it came from were exported). */
  private readonly unresolved = new Map<string, boolean>();
  /** Whether the model was already asked to verify. */
  asked = false;
  /** Finishes with unresolved failures after the model was asked. */
  unsupportedFinishes = 0;

  /**
   * A finished call on its subjects: a failure opens them, a success (an
   * answer, even an empty one) clears them. `named`: the call's arguments are
   * on its span, so the subjects' names may be exported too.
   */
  record(subjects: readonly string[], outcome: Outcome, named: boolean): void {
    if (outcome === 'pending') return;
    for (const subject of subjects) {
      if (outcome === 'error') {
        this.unresolved.delete(subject);
        this.unresolved.set(subject, named);
        if (this.unresolved.size > MAX_UNRESOLVED) this.unresolved.delete(this.unresolved.keys().next().value as string);
      } else if (subject === WHOLE_SUITE) {
        // The whole suite passing re-ran every test.
        for (const open of [...this.unresolved.keys()]) if (open.startsWith('test://')) this.unresolved.delete(open);
      } else {
        this.unresolved.delete(subject);
      }
    }
  }

  /** How many subjects are open. */
  get size(): number {
    return this.unresolved.size;
  }

  /** The open subjects by name (in process: the model and `onComplete` are told these). */
  get open(): string[] {
    return [...this.unresolved.keys()];
  }

  /** The open subjects as spans may carry them: by name where the arguments were exported, else their kind and a hash of the name. */
  get exported(): string[] {
    return [...this.unresolved].map(([subject, named]) => (named ? subject : `${subject.slice(0, subject.indexOf('://') + 3)}#${hashText(subject)}`));
  }

  /** The run is about to finish. */
  finish(): FinishAttempt {
    const subjects = this.open;
    if (subjects.length === 0) return { ask: false, subjects };
    if (!this.asked) {
      this.asked = true;
      return { ask: true, subjects };
    }
    this.unsupportedFinishes++;
    return { ask: false, subjects };
  }
}

/** The message that asks the model to verify before finishing. */
export function verifyMessage(subjects: readonly string[]): string {
  const list = subjects.map((s) => `- ${s}`).join('\n');
  return (
    '[loopguard] Before you finish: these checks failed earlier in this run and no later check on the same thing passed:\n' +
    `${list}\n` +
    'Re-run the check to confirm it passes now, or say plainly in your answer that it is still failing.'
  );
}
