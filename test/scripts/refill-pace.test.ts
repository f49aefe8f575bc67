import { describe, expect, it } from 'vitest';
import { REFILL_AFTER_FAILURE_MS, REFILL_AFTER_TAKE_MS, RefillPace } from '../../src/scripts/refill-pace.js';
import { FakeClock } from './fake-clock.js';

function paced() {
  const clock = new FakeClock();
  let refills = 0;
  const pace = new RefillPace(clock, () => refills++);
  return { clock, pace, refills: () => refills };
}

describe('when the pool refills', () => {
  it('at once when nothing paused it', () => {
    expect(paced().pace.paused).toBe(false);
  });

  it('REFILL_AFTER_TAKE_MS after a take', () => {
    const { clock, pace, refills } = paced();
    pace.afterTake();
    clock.advance(REFILL_AFTER_TAKE_MS - 1);
    expect(pace.paused).toBe(true);
    expect(refills()).toBe(0);
    clock.advance(1);
    expect(pace.paused).toBe(false);
    expect(refills()).toBe(1);
  });

  it('REFILL_AFTER_FAILURE_MS after a child failed to start', () => {
    const { clock, pace, refills } = paced();
    pace.afterFailure();
    clock.advance(REFILL_AFTER_FAILURE_MS - 1);
    expect(refills()).toBe(0);
    clock.advance(1);
    expect(refills()).toBe(1);
  });

  it('at the end of the first pause, however many come meanwhile', () => {
    const { clock, pace, refills } = paced();
    pace.afterTake();
    pace.afterFailure();
    pace.afterTake();
    clock.advance(REFILL_AFTER_TAKE_MS);
    expect(refills()).toBe(1);
    clock.advance(REFILL_AFTER_FAILURE_MS);
    expect(refills()).toBe(1);
  });

  it('not at all once the pause is cancelled', () => {
    const { clock, pace, refills } = paced();
    pace.afterFailure();
    pace.cancel();
    expect(pace.paused).toBe(false);
    clock.advance(REFILL_AFTER_FAILURE_MS);
    expect(refills()).toBe(0);
  });
});
