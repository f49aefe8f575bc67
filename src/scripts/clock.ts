/**
 * Time as the pool's policies see it: the system's in the server, a fake one in tests, so a policy
 * about time (a share window, an idle shrink, a hold) is tested without waiting.
 */

/** Cancels a scheduled run; cancelling one that has run, or twice, does nothing. */
export type Cancel = () => void;

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Runs `run` after `ms`. `ref`: keep the process alive until then (default false: the timer
   * never holds the process open by itself).
   */
  after(ms: number, run: () => void, options?: { readonly ref?: boolean }): Cancel;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, run, options) {
    const timer = setTimeout(run, ms);
    if (options?.ref !== true) timer.unref();
    return () => clearTimeout(timer);
  },
};
