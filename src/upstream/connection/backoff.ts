/** The first restart of an upstream that died or failed to start waits this long. */
export const RESTART_DELAY_FIRST_MS = 250;

/** Each further restart waits twice as long as the one before, up to this. */
export const RESTART_DELAY_MAX_MS = 30_000;

/** An upstream that has stayed up this long is healthy again: its next restart waits the first delay. */
export const RESTART_STABLE_AFTER_MS = 60_000;

/** Restart delays: 0.25 s, 0.5 s, 1 s, 2 s, ... capped at 30 s, back to 0.25 s after a stable run. */
export class Backoff {
  private nextDelayMs = RESTART_DELAY_FIRST_MS;

  /** The delay to wait now; the one after it doubles. */
  next(): number {
    const delay = this.nextDelayMs;
    this.nextDelayMs = Math.min(delay * 2, RESTART_DELAY_MAX_MS);
    return delay;
  }

  reset(): void {
    this.nextDelayMs = RESTART_DELAY_FIRST_MS;
  }
}

/** `0.25 s`, `30 s`. */
export function formatDelay(ms: number): string {
  return `${Math.round(ms / 10) / 100} s`;
}
