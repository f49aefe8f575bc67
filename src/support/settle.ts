/**
 * Waiting for something within a bound: the one helper for "this promise, or this many
 * milliseconds, or this signal, whichever comes first". Built on `node:timers/promises`, whose
 * timer is cancelled with an AbortSignal, so nothing is left pending once the wait is over.
 */
import { setTimeout as delay } from 'node:timers/promises';

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
export async function settleWithin(promise: PromiseLike<unknown>, bound: SettleBound): Promise<SettleOutcome> {
  const { ms = Infinity, signal, ref = false } = bound;
  if (signal?.aborted === true) return 'aborted';
  const stop = new AbortController();
  const waits: Promise<SettleOutcome>[] = [
    Promise.resolve(promise).then(
      () => 'settled' as const,
      () => 'settled' as const,
    ),
  ];
  if (Number.isFinite(ms)) {
    waits.push(delay(Math.max(0, ms), 'timeout' as const, { signal: stop.signal, ref }).catch(() => 'timeout' as const));
  }
  let onAbort: (() => void) | undefined;
  if (signal !== undefined) {
    waits.push(
      new Promise<SettleOutcome>((resolve) => {
        onAbort = () => resolve('aborted');
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    );
  }
  try {
    return await Promise.race(waits);
  } finally {
    stop.abort();
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
  }
}

/** Waits `ms` milliseconds, or less if `signal` aborts first (then it resolves, never rejects). */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
  await settleWithin(new Promise<never>(() => {}), { ms, signal, ref: true });
}
