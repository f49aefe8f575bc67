import type { Calls } from './calls';
import type { Limits } from './host';
import type { Timers } from './timers';
import { jsonStringify } from './intrinsics';

type Body =
  | { readonly state: 'pending' }
  | { readonly state: 'fulfilled'; readonly value: unknown }
  | { readonly state: 'rejected'; readonly error: unknown };

export const STATUS_RUNNING = 0;
export const STATUS_ENDED = 1;
export const STATUS_STALLED = 2;


/** The script body's progress and, once it is over, its ending. */
export class ScriptState {
  private body: Body = { state: 'pending' };

  constructor(
    private readonly calls: Calls,
    private readonly timers: Timers,
    private readonly limits: Limits,
    private readonly formatError: (error: unknown) => string,
  ) {}

  run(body: () => Promise<unknown>): void {
    let promise: Promise<unknown>;
    try {
      promise = body();
    } catch (error) {
      this.body = { state: 'rejected', error };
      return;
    }
    promise.then(
      (value) => (this.body = { state: 'fulfilled', value }),
      (error) => (this.body = { state: 'rejected', error }),
    );
  }

  /** A body that returned waits for its calls and timers, and the calls they go on to make. */
  status(): number {
    if (this.body.state === 'rejected') return STATUS_ENDED;
    if (this.calls.busy || this.timers.pending > 0) return STATUS_RUNNING;
    return this.body.state === 'fulfilled' ? STATUS_ENDED : STATUS_STALLED;
  }

  ending(stalled: boolean): string {
    const unsent = jsonStringify(this.calls.unsent());
    const withUnsent = unsent === '{}' ? {} : { unsent };
    if (stalled) {
      return jsonStringify({
        status: 'failed',
        error:
          'Stalled: the script awaits a promise that nothing can settle (no tool call, timer or job is left).',
        ...withUnsent,
      });
    }
    if (this.body.state === 'rejected') {
      return jsonStringify({ status: 'failed', error: this.formatError(this.body.error), ...withUnsent });
    }
    const value = this.body.state === 'fulfilled' ? this.valueJson(this.body.value) : undefined;
    return jsonStringify({ status: 'finished', ...(value === undefined ? {} : { value }), ...withUnsent });
  }

  /** The value as JSON, once; a value JSON can't hold comes back as a string that says so. */
  private valueJson(value: unknown): string | undefined {
    if (value === undefined) return undefined;
    let json: string | undefined;
    try {
      json = jsonStringify(value);
    } catch (error) {
      return jsonStringify(`[the value can't become JSON: ${(error as Error).message}]`);
    }
    if (json === undefined) return jsonStringify(`[the value can't become JSON: it is a ${typeof value}]`);
    if (json.length > this.limits.valueMaxChars) {
      return jsonStringify(
        `[the value is ${json.length} characters of JSON, past the cap of ${this.limits.valueMaxChars}: ` +
          'return less, or print parts of it]',
      );
    }
    return json;
  }
}
