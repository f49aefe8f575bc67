import type { Cancel, Clock } from '../../src/scripts/clock.js';

/** A clock that moves only when the test says: `advance` runs what falls due, in time order. */
export class FakeClock implements Clock {
  private time = 1_000_000;
  private scheduled = 0;
  private readonly due: Array<{ readonly at: number; readonly order: number; readonly run: () => void }> = [];

  now(): number {
    return this.time;
  }

  after(ms: number, run: () => void): Cancel {
    const entry = { at: this.time + ms, order: this.scheduled++, run };
    this.due.push(entry);
    return () => {
      const index = this.due.indexOf(entry);
      if (index !== -1) this.due.splice(index, 1);
    };
  }

  /** Moves time on by `ms`, running each scheduled run as its time comes (those it schedules too). */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const next = this.due.filter((entry) => entry.at <= end).sort((a, b) => a.at - b.at || a.order - b.order)[0];
      if (next === undefined) break;
      this.due.splice(this.due.indexOf(next), 1);
      this.time = next.at;
      next.run();
    }
    this.time = end;
  }

  /** Runs scheduled and not yet due or cancelled. */
  get pending(): number {
    return this.due.length;
  }
}
