/**
 * Waiting for something within a bound: the one helper for "this promise, or this many
 * milliseconds, or this signal, whichever comes first". Whichever comes first clears the others (the
 * timer, the signal's listener), so nothing is left pending once the wait is over. A plain timer,
 * not `node:timers/promises`' cancelled by an AbortSignal: that cancel rejects with an AbortError,
 * whose stack V8 captures, in every wait that ends before its time: a measurable share of the
 * server's CPU in a burst of scripts (bench/ANALYSIS.md, "Figures from the code's comments").
 */

/** How a bounded wait ended: the promise settled, the time ran out, or the caller's signal aborted. */
export type SettleOutcome = 'settled' | 'timeout' | 'aborted';

export interface SettleBound {
  /** Milliseconds to wait at most; `Infinity` (or omitted) waits as long as the promise takes. A negative bound is 0. */
  readonly ms?: number;
  /** Ends the wait early, as `aborted`. */
  readonly signal?: AbortSignal;
  /** Keep the process alive while waiting (default false: a bounded wait never holds the process open by itself). */
  readonly ref?: boolean;
}

/**
 * Waits for `promise` to settle, for at most `bound.ms`, or until `bound.signal` aborts. Never
 * throws for the promise: its rejection counts as settled (the caller reads the promise itself when
 * it needs the value or the error).
 */
export function settleWithin(promise: PromiseLike<unknown>, bound: SettleBound): Promise<SettleOutcome> {
  const { ms = Infinity, signal, ref = false } = bound;
  if (signal?.aborted === true) return Promise.resolve('aborted');
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = (outcome: SettleOutcome): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onAbort = (): void => finish('aborted');
    Promise.resolve(promise).then(
      () => finish('settled'),
      () => finish('settled'),
    );
    if (Number.isFinite(ms)) {
      timer = setTimeout(() => finish('timeout'), Math.max(0, ms));
      if (!ref) timer.unref();
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Waits `ms` milliseconds, or less if `signal` aborts first (then it resolves, never rejects). */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
  await settleWithin(new Promise<never>(() => {}), { ms, signal, ref: true });
}
