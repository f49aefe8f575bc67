import { describe, expect, it } from 'vitest';
import { ENDING_COLLECT_MAX_MS, InterruptPoll } from '../../engine/interrupt-poll.js';
import { STOP_CHECK_INTERVAL_MS } from '../../protocol/contract.js';

function pollAt(started = true): {
  poll: InterruptPoll;
  clock: { now: number };
  checks: number[];
  stopFile: { exists: boolean };
} {
  const clock = { now: 1_000 };
  const checks: number[] = [];
  const stopFile = { exists: false };
  const poll = new InterruptPoll({
    now: () => clock.now,
    started: () => started,
    check: (now) => checks.push(now),
    stopFileExists: () => stopFile.exists,
  });
  return { poll, clock, checks, stopFile };
}

describe('the interrupt poll', () => {
  it('checks at most once per STOP_CHECK_INTERVAL_MS, and only once the script has started', () => {
    const { poll, clock, checks } = pollAt();
    expect(poll.shouldInterrupt()).toBe(false);
    clock.now += STOP_CHECK_INTERVAL_MS - 1;
    expect(poll.shouldInterrupt()).toBe(false);
    clock.now += 1;
    expect(poll.shouldInterrupt()).toBe(false);
    expect(checks).toEqual([1_000, 1_000 + STOP_CHECK_INTERVAL_MS]);
    const before = pollAt(false);
    expect(before.poll.shouldInterrupt()).toBe(false);
    expect(before.checks).toEqual([]);
  });

  it('interrupts from the first check that finds the stop file, and from then on', () => {
    const { poll, clock, stopFile } = pollAt();
    stopFile.exists = true;
    expect(poll.shouldInterrupt()).toBe(true);
    expect(poll.stopped).toBe(true);
    stopFile.exists = false;
    clock.now += 1;
    expect(poll.shouldInterrupt()).toBe(true);
  });

  it('interrupts at once on a stop requested, even before the start', () => {
    const { poll } = pollAt(false);
    poll.requestStop();
    expect(poll.shouldInterrupt()).toBe(true);
  });

  it("lets a stopped script's ending be collected for ENDING_COLLECT_MAX_MS, then interrupts it too", () => {
    const { poll, clock } = pollAt();
    poll.requestStop();
    const seen = poll.collectEnding(() => {
      const within = poll.shouldInterrupt();
      clock.now += ENDING_COLLECT_MAX_MS + 1;
      return [within, poll.shouldInterrupt()];
    });
    expect(seen).toEqual([false, true]);
    expect(poll.shouldInterrupt()).toBe(true);
  });
});
