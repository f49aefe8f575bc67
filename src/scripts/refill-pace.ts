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
 * When the pool may start children: at once, or after the pause a take or a failed start asks
 * for. While a pause runs, a refill waits for its end (a second pause doesn't move it); at its end
 * `refill` runs.
 */
export class RefillPace {
  private cancelPause: Cancel | undefined;

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
    this.pause(REFILL_AFTER_TAKE_MS);
  }

  /** A pooled child could not start: try again later, not in a loop. */
  afterFailure(): void {
    this.pause(REFILL_AFTER_FAILURE_MS);
  }

  /** Ends the pause without its refill: the caller refills now, or the pool is closing. */
  cancel(): void {
    this.cancelPause?.();
    this.cancelPause = undefined;
  }

  private pause(ms: number): void {
    this.cancelPause ??= this.clock.after(ms, () => {
      this.cancelPause = undefined;
      this.refill();
    });
  }
}
