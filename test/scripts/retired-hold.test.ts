import { describe, expect, it } from 'vitest';
import { RetiredHold } from '../../src/scripts/retired-hold.js';
import { FakeClock } from './fake-clock.js';

function hold(maxHeld: number, holdMaxMs = 250) {
  const clock = new FakeClock();
  const released: string[] = [];
  const retired = new RetiredHold<string>({ maxHeld, holdMaxMs }, clock, (child) => released.push(child));
  return { clock, released, retired };
}

describe('children whose script has ended', () => {
  it('are held until holdMaxMs after the first was, then all let go', () => {
    const { clock, released, retired } = hold(4);
    retired.hold('a');
    clock.advance(200);
    retired.hold('b');
    clock.advance(49);
    expect(released).toEqual([]);
    clock.advance(1);
    expect(released).toEqual(['a', 'b']);
  });

  it('are let go the oldest first past maxHeld', () => {
    const { released, retired } = hold(2);
    retired.hold('a');
    retired.hold('b');
    expect(released).toEqual([]);
    retired.hold('c');
    expect(released).toEqual(['a']);
  });

  it('are let go at once when the supply says no script runs, and a new hold starts a new clock', () => {
    const { clock, released, retired } = hold(4);
    retired.hold('a');
    retired.releaseAll();
    expect(released).toEqual(['a']);
    expect(clock.pending).toBe(0);
    retired.hold('b');
    clock.advance(249);
    expect(released).toEqual(['a']);
    clock.advance(1);
    expect(released).toEqual(['a', 'b']);
  });

  it('are forgotten once exited, and not let go again', () => {
    const { clock, released, retired } = hold(4);
    retired.hold('a');
    retired.hold('b');
    retired.forget('a');
    retired.forget('not held');
    clock.advance(250);
    expect(released).toEqual(['b']);
  });
});
