import type { Clock } from './clock.js';

/**
 * 0.3: the weight of the newest measurement in the moving averages below, so a few runs move the
 * estimate (a burst's scripts are alike) and one outlier does not swing it.
 */
const NEWEST_WEIGHT = 0.3;

/**
 * 2: a script running for more than twice its owner's usual turn is doing something longer than
 * usual; a run does not count on its child being free soon.
 */
const OVERRUN_FACTOR = 2;

/**
 * 1 s: the longest a run waits for one of its owner's children being reset. A reset takes a few
 * milliseconds (bench/RESULTS.md); one not done by then is stuck, and the run is served otherwise.
 */
export const RESET_WAIT_MAX_MS = 1_000;

/**
 * What the pool has measured of its children, to decide whether a run waits for a busy one: how
 * long a start takes (spawn until ready), and per owner how long a turn takes (a child handed to
 * one of its scripts until it is reset and ready for the next: the script's run and the reset).
 * Moving averages, weighted by NEWEST_WEIGHT.
 */
export class ChildTimings {
  private startMs: number | undefined;
  /** Whether startMs is from children started for a run (no warm-up), or only from pooled ones. */
  private startMeasuredCold = false;
  private readonly turns = new WeakMap<object, number>();

  /**
   * A child took `ms` from spawn to ready. `forRun`: started for a run that found the pool empty,
   * without the pooled child's warm-up: what a run waiting on a start pays. Until one is measured,
   * the pooled children's starts (longer, by their warm-up) stand for it.
   */
  started(ms: number, forRun: boolean): void {
    if (forRun && !this.startMeasuredCold) {
      this.startMeasuredCold = true;
      this.startMs = ms;
      return;
    }
    if (forRun || !this.startMeasuredCold) this.startMs = average(this.startMs, ms);
  }

  /** One of `owner`'s children took `ms` from being handed a script to being ready for the next. */
  turned(owner: object, ms: number): void {
    this.turns.set(owner, average(this.turns.get(owner), ms));
  }

  /** The time a run would wait for a child started for it, once measured. */
  get startTime(): number | undefined {
    return this.startMs;
  }

  /** `owner`'s usual turn, once one was measured. */
  turnOf(owner: object): number | undefined {
    return this.turns.get(owner);
  }
}

/**
 * How long a run that finds no child idle should wait for one of its owner's busy children, or
 * undefined when it should not wait: a child started for it would be ready sooner, or either time
 * has not been measured yet (a guess would be no better than a start). `busyFor`: how long each of
 * the owner's children has run its current script; `queued`: the owner's runs already waiting.
 * The run is `queued`'s place in line over the owner's children, each free after what is left of
 * its turn; one running past OVERRUN_FACTOR turns is not counted on. It waits up to a start's time:
 * past that, starting a child then costs it at most twice what starting one at once would have.
 */
export function reuseWaitMs(options: {
  readonly startMs: number | undefined;
  readonly turnMs: number | undefined;
  readonly busyFor: readonly number[];
  readonly queued: number;
}): number | undefined {
  const { startMs, turnMs, busyFor, queued } = options;
  if (startMs === undefined || turnMs === undefined) return undefined;
  const left = busyFor
    .filter((ms) => ms < OVERRUN_FACTOR * turnMs)
    .map((ms) => Math.max(0, turnMs - ms))
    .sort((a, b) => a - b);
  if (left.length === 0) return undefined;
  const expected = left[queued % left.length]! + Math.floor(queued / left.length) * turnMs;
  return expected < startMs ? startMs : undefined;
}

function average(previous: number | undefined, ms: number): number {
  return previous === undefined ? ms : previous + NEWEST_WEIGHT * (ms - previous);
}

/**
 * Runs waiting for one of their owner's children to be reset (reuseWaitMs said to wait), first
 * come first served per owner. A wait ends with a child (give), or without one: its time is up,
 * the child it waited for will not come (wakeOne), or the owner's session or the server is ending
 * (wakeAll); then the run is served as if it had not waited.
 */
export class WaitingRuns<Child> {
  private readonly queues = new Map<object, Array<(child: Child | undefined) => void>>();

  constructor(private readonly clock: Pick<Clock, 'after'>) {}

  /** `owner`'s runs waiting now. */
  count(owner: object): number {
    return this.queues.get(owner)?.length ?? 0;
  }

  /** Waits up to `ms` for one of `owner`'s children: resolves with it, or with undefined when the wait ends without one. */
  wait(owner: object, ms: number): Promise<Child | undefined> {
    return new Promise((resolve) => {
      const queue = this.queues.get(owner) ?? [];
      this.queues.set(owner, queue);
      const end = (child: Child | undefined): void => {
        cancel();
        const index = queue.indexOf(end);
        if (index !== -1) queue.splice(index, 1);
        if (queue.length === 0 && this.queues.get(owner) === queue) this.queues.delete(owner);
        resolve(child);
      };
      const cancel = this.clock.after(ms, () => end(undefined));
      queue.push(end);
    });
  }

  /** Hands `child` to `owner`'s first waiting run; false when none waits. */
  give(owner: object, child: Child): boolean {
    const first = this.queues.get(owner)?.[0];
    first?.(child);
    return first !== undefined;
  }

  /** Ends the wait of `owner`'s first waiting run without a child: the one it waited for will not come. */
  wakeOne(owner: object): void {
    this.queues.get(owner)?.[0]?.(undefined);
  }

  /** Ends every wait of `owner`, or of every owner, without a child. */
  wakeAll(owner?: object): void {
    const queues = owner === undefined ? [...this.queues.values()] : [this.queues.get(owner) ?? []];
    for (const queue of queues) for (const end of [...queue]) end(undefined);
  }
}
