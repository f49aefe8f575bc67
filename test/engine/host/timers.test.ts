import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HostTimers } from '../../../engine/host/timers.js';

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe('host timers', () => {
  it('fire by id when due, a negative delay as none, except the ones cleared', () => {
    const fired: number[] = [];
    const timers = new HostTimers((id) => fired.push(id));
    expect([timers.set(50), timers.set(-5), timers.set(10), timers.set(20)]).toEqual([1, 2, 3, 4]);
    timers.clear(3);
    vi.advanceTimersByTime(0);
    expect(fired).toEqual([2]);
    vi.advanceTimersByTime(50);
    expect(fired).toEqual([2, 4, 1]);
  });

  it('fires none once all are cleared', () => {
    const fired: number[] = [];
    const timers = new HostTimers((id) => fired.push(id));
    timers.set(0);
    timers.set(10);
    timers.clearAll();
    vi.runAllTimers();
    expect(fired).toEqual([]);
  });
});
