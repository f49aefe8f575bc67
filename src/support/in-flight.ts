/**
 * Requests begun and not yet answered, counted: a close waits for the answers it still owes (an
 * open `wait` gets its script's ending) before it closes the connection that would carry them.
 */
import { settleWithin } from './settle.js';

/**
 * 1 s: how long a close waits for the answers still owed once its scripts have stopped; a call
 * still out upstream then (an exposed tool's) is answered by the connection's close instead.
 */
export const ANSWERS_OWED_WAIT_MS = 1_000;

export class InFlight {
  private count = 0;
  private readonly idle: Array<() => void> = [];

  /** Counts `work` while it runs. */
  async track<T>(work: () => Promise<T>): Promise<T> {
    this.count++;
    try {
      return await work();
    } finally {
      if (--this.count === 0) for (const resolve of this.idle.splice(0)) resolve();
    }
  }

  /**
   * Resolves once nothing is in flight and the event loop has turned once more (an answer's
   * handler has returned, and the SDK has written it), or after ANSWERS_OWED_WAIT_MS.
   */
  async answered(): Promise<void> {
    const none = this.count === 0 ? Promise.resolve() : new Promise<void>((resolve) => this.idle.push(resolve));
    await settleWithin(none, { ms: ANSWERS_OWED_WAIT_MS, ref: true });
    await new Promise((resolve) => setImmediate(resolve));
  }
}
