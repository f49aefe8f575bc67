import { describe, expect, it } from 'vitest';
import { ChildTimings, WaitingRuns, reuseWaitMs } from '../../src/scripts/reuse-wait.js';
import { FakeClock } from './fake-clock.js';

describe('reuseWaitMs: whether a run waits for one of its owner’s busy children', () => {
  it.each([
    ['nothing measured yet', { startMs: undefined, turnMs: 10, busyFor: [0] }, undefined],
    [
      'no turn measured for the owner: a child that has run less than a start is counted on',
      { startMs: 300, turnMs: undefined, busyFor: [0] },
      300,
    ],
    [
      'no turn measured for the owner, its children all running longer than a start',
      { startMs: 300, turnMs: undefined, busyFor: [300, 900] },
      undefined,
    ],
    ['no child of the owner busy', { startMs: 300, turnMs: 10, busyFor: [] }, undefined],
    ['a turn shorter than a start: waits up to a start', { startMs: 300, turnMs: 50, busyFor: [0] }, 300],
    ['a turn longer than a start', { startMs: 300, turnMs: 400, busyFor: [0] }, undefined],
    ['a long turn nearly done', { startMs: 300, turnMs: 400, busyFor: [350] }, 300],
    ['a child running past twice its turn is not counted on', { startMs: 300, turnMs: 50, busyFor: [101] }, undefined],
    ['the soonest of several children counts', { startMs: 300, turnMs: 400, busyFor: [0, 150] }, 300],
  ])('%s', (_, options, expected) => {
    expect(reuseWaitMs(options)).toBe(expected);
  });
});

describe('ChildTimings', () => {
  it('takes the pooled starts until a start for a run is measured, then only those', () => {
    const timings = new ChildTimings();
    timings.started(400, false);
    expect(timings.startTime).toBe(400);
    timings.started(100, true);
    expect(timings.startTime).toBe(100);
    timings.started(900, false);
    expect(timings.startTime).toBe(100);
    timings.started(200, true);
    expect(timings.startTime).toBeCloseTo(130);
  });

  it("keeps each owner's turn apart", () => {
    const timings = new ChildTimings();
    const alice = {};
    timings.turned(alice, 20);
    expect(timings.turnOf(alice)).toBe(20);
    expect(timings.turnOf({})).toBeUndefined();
  });
});

describe('WaitingRuns', () => {
  it('serves an owner’s waiting runs first come first served, and ends a wait without a child when woken', async () => {
    const clock = new FakeClock();
    const runs = new WaitingRuns<string>(clock);
    const alice = {};
    const first = runs.wait(alice, 100);
    const second = runs.wait(alice, 100);
    expect(runs.count(alice)).toBe(2);
    expect(runs.give({}, 'child of another')).toBe(false);
    expect(runs.give(alice, 'child')).toBe(true);
    expect(await first).toBe('child');
    runs.wakeOne(alice);
    expect(await second).toBeUndefined();
    expect(runs.count(alice)).toBe(0);
  });

  it('keeps a line waiting while children come free for it, and ends it once none has for its time', async () => {
    const clock = new FakeClock();
    const runs = new WaitingRuns<string>(clock);
    const alice = {};
    const waits = [runs.wait(alice, 100), runs.wait(alice, 100), runs.wait(alice, 100)];
    clock.advance(90);
    runs.give(alice, 'a');
    clock.advance(90);
    runs.give(alice, 'b');
    clock.advance(90);
    expect(runs.count(alice)).toBe(1);
    clock.advance(10);
    expect(await Promise.all(waits)).toEqual(['a', 'b', undefined]);
  });
});
