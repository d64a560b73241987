import { WHOLE_SUITE } from './subjects.js';
import type { Outcome } from './types.js';

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
  private readonly unresolved = new Set<string>();
  /** Whether the model was already asked to verify. */
  asked = false;
  /** Finishes with unresolved failures after the model was asked. */
  unsupportedFinishes = 0;

  /** A finished call on its subjects: a failure opens them, a success (an answer, even an empty one) clears them. */
  record(subjects: readonly string[], outcome: Outcome): void {
    if (outcome === 'pending') return;
    for (const subject of subjects) {
      if (outcome === 'error') {
        this.unresolved.delete(subject);
        this.unresolved.add(subject);
        if (this.unresolved.size > MAX_UNRESOLVED) this.unresolved.delete(this.unresolved.values().next().value as string);
      } else if (subject === WHOLE_SUITE) {
        // The whole suite passing re-ran every test.
        for (const open of [...this.unresolved]) if (open.startsWith('test://')) this.unresolved.delete(open);
      } else {
        this.unresolved.delete(subject);
      }
    }
  }

  get open(): string[] {
    return [...this.unresolved];
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
