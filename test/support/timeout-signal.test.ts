import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { timeoutSignal } from '../../src/support/timeout-signal.js';

/** The collector, run now (what --expose-gc gives, turned on in this process). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('timeoutSignal', () => {
  it('aborts an AbortSignal.any composite though nothing else holds it and the collector ran meanwhile', async () => {
    const never = new AbortController();
    const composite = AbortSignal.any([never.signal, timeoutSignal(50)]);
    const aborted = new Promise<unknown>((resolve) => composite.addEventListener('abort', () => resolve(composite.reason)));
    // Node 20's AbortSignal.timeout(50) in its place is collected here, and the composite never aborts.
    for (let round = 0; round < 5; round++) {
      collectGarbage();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const reason = await aborted;
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe('TimeoutError');
  });
});
