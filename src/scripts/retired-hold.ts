import type { Cancel, Clock } from './clock.js';

/**
 * 250 ms: the longest a child whose script has ended is held back from exiting while other scripts
 * run; at most maxScriptChildren are held at once. A process's exit costs the kernel CPU freeing
 * its memory, which in a burst the first runs to end would take from the runs still going
 * (bench/ANALYSIS.md, "Sixteen scripts at once"); a held child keeps its memory meanwhile: hence
 * the short hold and the count.
 */
export const RETIRED_HOLD_MAX_MS = 250;

export interface RetiredHoldLimits {
  /** The most children held at once: past it, the oldest is let go. */
  readonly maxHeld: number;
  /** The longest the first of those held waits: then all are let go. */
  readonly holdMaxMs: number;
}

/**
 * Children whose script has ended, held back from exiting, so their exits' CPU comes after the
 * answers of a burst rather than among them; the supply lets them all go once no script runs.
 * `release` lets one go.
 */
export class RetiredHold<Child> {
  private readonly held: Child[] = [];
  private cancelTimer: Cancel | undefined;

  constructor(
    private readonly limits: RetiredHoldLimits,
    private readonly clock: Clock,
    private readonly release: (child: Child) => void,
  ) {}

  /** Holds `child`, letting the oldest go past maxHeld; all go at most holdMaxMs from the first held now. */
  hold(child: Child): void {
    this.held.push(child);
    if (this.held.length > this.limits.maxHeld) this.release(this.held.shift()!);
    // Referenced: a held child's exit is due, and the process waits for it to be let go.
    this.cancelTimer ??= this.clock.after(this.limits.holdMaxMs, () => this.releaseAll(), { ref: true });
  }

  /** Lets every held child go. */
  releaseAll(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    for (const child of this.held.splice(0)) this.release(child);
  }

  /** `child` has exited: it is no longer held. */
  forget(child: Child): void {
    const index = this.held.indexOf(child);
    if (index !== -1) this.held.splice(index, 1);
  }
}
