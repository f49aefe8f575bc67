import { describe, expect, test } from 'vitest';
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { Liveness } from '../../src/upstream/connection/liveness.js';

describe('Liveness', () => {
  /** A Liveness on a clock the test moves, with pings it answers by hand. */
  function onClock(intervalMs = 1_000) {
    let now = 0;
    const pings: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
    const dead: string[] = [];
    const liveness = new Liveness({
      intervalMs,
      timeoutMs: 500,
      now: () => now,
      ping: () => new Promise<void>((resolve, reject) => void pings.push({ resolve, reject })),
      onDead: (reason) => void dead.push(reason),
    });
    return { liveness, pings, dead, advance: (ms: number) => void (now += ms) };
  }

  test('a call soon after the upstream was heard from is not held for a ping', async () => {
    const { liveness, pings, advance } = onClock();
    advance(999);
    expect(liveness.beforeUse()).toBeUndefined();
    expect(pings).toHaveLength(0);
    liveness.stop();
  });

  test('a call after an idle spell waits for a ping; an answer, even an error, lets it through', async () => {
    const { liveness, pings, advance } = onClock();
    advance(1_000);
    const first = liveness.beforeUse();
    expect(pings).toHaveLength(1);
    pings[0]!.reject(new ProtocolError(ProtocolErrorCode.MethodNotFound, 'no ping here'));
    await first;
    advance(999);
    expect(liveness.beforeUse()).toBeUndefined();
    expect(pings).toHaveLength(1);
    liveness.stop();
  });

  test('an unanswered ping reports the upstream dead once, and every later call is refused with the reason', async () => {
    const { liveness, pings, dead, advance } = onClock();
    advance(1_000);
    const calls = [liveness.beforeUse()!, liveness.beforeUse()!];
    expect(pings).toHaveLength(1);
    pings[0]!.reject(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out'));
    const reason = 'it did not answer a ping within 0.5 s (upstreamPingTimeoutMs)';
    for (const call of calls) await expect(call).rejects.toThrow(reason);
    await expect(liveness.beforeUse()).rejects.toThrow(reason);
    expect(dead).toEqual([reason]);
  });
});
