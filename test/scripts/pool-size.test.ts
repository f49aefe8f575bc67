import { describe, expect, it } from 'vitest';
import { POOL_SHRINK_AFTER_MS, PoolSize, childrenToStart, type PoolSizeLimits } from '../../src/scripts/pool-size.js';
import { FakeClock } from './fake-clock.js';

/** A PoolSize on a fake clock, with what it said. */
function sized(limits: PoolSizeLimits, starting = false) {
  const clock = new FakeClock();
  const said: string[] = [];
  const size = new PoolSize(
    limits,
    clock,
    { grown: (to) => said.push(`grown to ${to}`), shrunk: (from, to) => said.push(`shrunk from ${from} to ${to}`) },
    starting,
  );
  return { clock, said, size };
}

describe('how many children a refill starts', () => {
  it.each([
    ['fills an empty pool to its target when no script runs', { pooled: 0, counted: 0, target: 3 }, 3],
    ['tops up a pool when no script runs', { pooled: 1, counted: 1, target: 3 }, 2],
    ['starts nothing in a full pool', { pooled: 3, counted: 3, target: 3 }, 0],
    ['starts one child into an empty pool while scripts run', { pooled: 0, counted: 2, target: 3 }, 1],
    ['starts nothing into a pool with a child while scripts run', { pooled: 1, counted: 3, target: 3 }, 0],
    ['fills up to the cap, pooled children counted', { pooled: 6, counted: 6, target: 10 }, 2],
    ['starts nothing at the cap', { pooled: 0, counted: 8, target: 3 }, 0],
    ['fills to the cap at most', { pooled: 1, counted: 1, target: 20 }, 7],
    ['counts a pooled child that exited as room (it is on its way out of the pool)', { pooled: 2, counted: 1, target: 3 }, 1],
    ['starts nothing with the pool off', { pooled: 0, counted: 0, target: 0 }, 0],
    ['fills the pool when the only other children are kept for their owners', { pooled: 0, counted: 2, target: 2, kept: 2 }, 2],
    ['counts kept children against the cap', { pooled: 0, counted: 7, target: 3, kept: 7 }, 1],
  ])('%s', (_, pool, expected) => {
    expect(childrenToStart({ kept: 0, ...pool, maxScriptChildren: 8 })).toBe(expected);
  });
});

describe('the pool under a burst', () => {
  it('grows to the runs at once when they come faster than it refills, counting a run a refill served', () => {
    const { size, said } = sized({ pool: 1, maxScriptChildren: 8 });
    size.took(false, 1); // the pooled child
    expect(size.target).toBe(1);
    size.took(true, 2); // the pool was empty: one more
    expect(size.target).toBe(2);
    size.took(false, 3); // a refill served this one, yet three run at once
    expect(size.target).toBe(3);
    size.refilled(2);
    expect(said).toEqual([]);
    size.refilled(3);
    expect(said).toEqual(['grown to 3']);
  });

  it('grows by one for a run that found it empty, with no other script running', () => {
    const { size } = sized({ pool: 1, maxScriptChildren: 8 });
    size.took(false, 1);
    size.took(true, 1);
    expect(size.target).toBe(2);
  });

  it('does not grow while runs find a child ready', () => {
    const { size, said } = sized({ pool: 2, maxScriptChildren: 8 });
    for (let running = 1; running <= 5; running++) size.took(false, running);
    expect(size.target).toBe(2);
    size.refilled(2);
    expect(said).toEqual([]);
  });

  it('grows no further than maxScriptChildren', () => {
    const { size } = sized({ pool: 1, maxScriptChildren: 3 });
    for (let running = 1; running <= 6; running++) size.took(true, running);
    expect(size.target).toBe(3);
  });

  it('never grows with the pool off', () => {
    const { size } = sized({ pool: 0, maxScriptChildren: 8 });
    size.took(true, 4);
    expect(size.target).toBe(0);
  });
});

describe('the pool when idle', () => {
  /** A pool of 1 grown to 3 by a burst, refilled. */
  function grown() {
    const pool = sized({ pool: 1, maxScriptChildren: 8 });
    pool.size.took(true, 3);
    pool.size.refilled(3);
    pool.said.splice(0);
    return pool;
  }

  it('shrinks back to `pool` once full and untouched for POOL_SHRINK_AFTER_MS', () => {
    const { size, said, clock } = grown();
    clock.advance(POOL_SHRINK_AFTER_MS - 1);
    expect(size.target).toBe(3);
    clock.advance(1);
    expect(said).toEqual(['shrunk from 3 to 1']);
    expect(size.target).toBe(1);
  });

  it('starts its idle clock again when a take stopped it, only once full again', () => {
    const { size, said, clock } = grown();
    clock.advance(POOL_SHRINK_AFTER_MS - 1);
    size.took(false, 1);
    clock.advance(POOL_SHRINK_AFTER_MS);
    expect(said).toEqual([]);
    size.refilled(2);
    clock.advance(POOL_SHRINK_AFTER_MS);
    expect(said).toEqual([]);
    size.refilled(3);
    clock.advance(POOL_SHRINK_AFTER_MS);
    expect(said).toEqual(['shrunk from 3 to 1']);
  });

  it('keeps its first idle clock when refilled again meanwhile', () => {
    const { size, said, clock } = grown();
    clock.advance(POOL_SHRINK_AFTER_MS / 2);
    size.refilled(3);
    clock.advance(POOL_SHRINK_AFTER_MS / 2);
    expect(said).toEqual(['shrunk from 3 to 1']);
  });

  it('has no idle clock at its own size, and none once stopped', () => {
    const plain = sized({ pool: 2, maxScriptChildren: 8 });
    plain.size.refilled(2);
    expect(plain.clock.pending).toBe(0);
    const { size, clock } = grown();
    expect(clock.pending).toBe(1);
    size.stop();
    expect(clock.pending).toBe(0);
  });
});

describe('the pool while the server starts', () => {
  it('refills to one child until started, then to its size', () => {
    const { size } = sized({ pool: 3, maxScriptChildren: 8 }, true);
    expect(size.refillTarget).toBe(1);
    expect(size.target).toBe(3);
    size.started();
    expect(size.refillTarget).toBe(3);
  });

  it('refills to none with the pool off', () => {
    const { size } = sized({ pool: 0, maxScriptChildren: 8 }, true);
    expect(size.refillTarget).toBe(0);
  });
});
