import type { Cancel, Clock } from './clock.js';

/** 1 s: after a pooled child fails to start, the pool waits this long before it starts another. */
export const REFILL_AFTER_FAILURE_MS = 1_000;

/**
 * 100 ms: after a run takes a pooled child, the pool waits this long before it starts another:
 * spawning blocks the server for milliseconds, which would otherwise land on the taken child's
 * start and first call.
 */
export const REFILL_AFTER_TAKE_MS = 100;

/**
 * 1 s: the longest runs waiting in line for their owners' children hold the pool's refill. While
 * they wait, the pool's children are all busy with their owners' scripts and a start would take a
 * core from them for its whole time (bench/ANALYSIS.md, "Figures from the code's comments"): a
 * burst of one owner's short scripts is served sooner without it, and the refill comes once the
 * line is empty. Past this, the pool refills anyway, so a line that lasts (one owner keeping its
 * children busy) doesn't keep the pool from having a child ready for another session's first run.
 */
export const REFILL_HOLD_MAX_MS = 1_000;

/**
 * When the pool may start children: at once, or after the pause a take, a failed start or a line
 * of waiting runs asks for. While a pause runs, a refill waits for its end (a second pause doesn't
 * move it, but a line's replaces a shorter one); at its end `refill` runs.
 */
export class RefillPace {
  private cancelPause: Cancel | undefined;
  /** What the running pause is for. */
  private pausedFor: 'take' | 'failure' | 'line' | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly refill: () => void,
  ) {}

  /** A pause is running: a refill now would start nothing. */
  get paused(): boolean {
    return this.cancelPause !== undefined;
  }

  /** A run took a pooled child. */
  afterTake(): void {
    this.pause(REFILL_AFTER_TAKE_MS, 'take');
  }

  /** A pooled child could not start: try again later, not in a loop. */
  afterFailure(): void {
    this.pause(REFILL_AFTER_FAILURE_MS, 'failure');
  }

  /**
   * Runs began to wait in line for their owners' children: no start until they are served
   * (runsServed), or for REFILL_HOLD_MAX_MS. A failed start's pause stays as it is.
   */
  whileRunsWait(): void {
    if (this.pausedFor === 'failure') return;
    this.cancel();
    this.pause(REFILL_HOLD_MAX_MS, 'line');
  }

  /**
   * No run waits any more: the refill a line held comes REFILL_AFTER_TAKE_MS later, as after a
   * take, when the scripts the last runs were given are likely over.
   */
  runsServed(): void {
    if (this.pausedFor !== 'line') return;
    this.cancel();
    this.afterTake();
  }

  /** Ends the pause without its refill: the caller refills now, or the pool is closing. */
  cancel(): void {
    this.cancelPause?.();
    this.cancelPause = undefined;
    this.pausedFor = undefined;
  }

  private pause(ms: number, reason: 'take' | 'failure' | 'line'): void {
    if (this.cancelPause !== undefined) return;
    this.pausedFor = reason;
    this.cancelPause = this.clock.after(ms, () => {
      this.cancelPause = undefined;
      this.pausedFor = undefined;
      this.refill();
    });
  }
}
