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
 * undefined when it should not wait: a child started for it would be ready before any of them is
 * free (each is free after what is left of its turn; one running past OVERRUN_FACTOR turns is not
 * counted on), or no start has been measured yet. Before any of the owner's turns is measured (its
 * first scripts), a child that has run for less than a start's time is counted on: a first burst of
 * short scripts is served by the children already there too, where it started a process for each
 * run, many times slower (bench/ANALYSIS.md, "Figures from the code's comments"); scripts longer
 * than a start cost their runs one start's time more, once, as a wrong guess does. `busyFor`: how
 * long each of the owner's children has run its current script. Its place in the owner's line does
 * not count: the line is served by each child as it comes free, and a start would take a core from
 * them for its whole time, so a burst of scripts shorter than a start is served sooner by the
 * children already there; scripts longer than a start make the pool grow. The answer is a start's
 * time: the owner's line (WaitingRuns) ends if no child came free for it that long.
 */
export function reuseWaitMs(options: {
  readonly startMs: number | undefined;
  readonly turnMs: number | undefined;
  readonly busyFor: readonly number[];
}): number | undefined {
  const { startMs, turnMs, busyFor } = options;
  if (startMs === undefined) return undefined;
  if (turnMs === undefined) return busyFor.some((ms) => ms < startMs) ? startMs : undefined;
  const soonest = Math.min(...busyFor.filter((ms) => ms < OVERRUN_FACTOR * turnMs).map((ms) => Math.max(0, turnMs - ms)));
  return soonest < startMs ? startMs : undefined;
}

function average(previous: number | undefined, ms: number): number {
  return previous === undefined ? ms : previous + NEWEST_WEIGHT * (ms - previous);
}

/**
 * Runs waiting for one of their owner's children to be reset (reuseWaitMs said to wait), first
 * come first served per owner. A wait ends with a child (give), or without one: the owner's line
 * has not moved for the time given (no child of the owner came free in it: they are slower than
 * measured, and a start is then sooner), the child it waited for will not come (wakeOne), or the
 * owner's session or the server is ending (wakeAll); then the run is served as if it had not
 * waited. While children keep coming free, the line keeps waiting: each is the sooner.
 */
export class WaitingRuns<Child> {
  private readonly lines = new Map<object, Line<Child>>();

  /** `waitingChanged`: told true when a run begins to wait with none waiting, false when the last stops. */
  constructor(
    private readonly clock: Pick<Clock, 'after'>,
    private readonly waitingChanged: (waiting: boolean) => void = () => {},
  ) {}

  /** `owner`'s runs waiting now. */
  count(owner: object): number {
    return this.lines.get(owner)?.runs.length ?? 0;
  }

  /**
   * Waits for one of `owner`'s children: resolves with it, or with undefined when the wait ends
   * without one; the line ends so once `ms` pass with no child given to it.
   */
  wait(owner: object, ms: number): Promise<Child | undefined> {
    return new Promise((resolve) => {
      let line = this.lines.get(owner);
      if (line === undefined) {
        line = { runs: [], stallMs: ms, cancelStall: () => {} };
        this.lines.set(owner, line);
        this.watchStall(owner, line);
        if (this.lines.size === 1) this.waitingChanged(true);
      }
      line.runs.push(resolve);
    });
  }

  /** Hands `child` to `owner`'s first waiting run; false when none waits. */
  give(owner: object, child: Child): boolean {
    const line = this.lines.get(owner);
    const first = line?.runs.shift();
    if (line === undefined || first === undefined) return false;
    first(child);
    this.moved(owner, line);
    return true;
  }

  /** Ends the wait of `owner`'s first waiting run without a child: the one it waited for will not come. */
  wakeOne(owner: object): void {
    const line = this.lines.get(owner);
    const first = line?.runs.shift();
    if (line === undefined || first === undefined) return;
    first(undefined);
    this.moved(owner, line);
  }

  /** Ends every wait of `owner`, or of every owner, without a child. */
  wakeAll(owner?: object): void {
    const owners = owner === undefined ? [...this.lines.keys()] : [owner];
    let ended = false;
    for (const one of owners) {
      const line = this.lines.get(one);
      if (line === undefined) continue;
      line.cancelStall();
      this.lines.delete(one);
      ended = true;
      for (const run of line.runs) run(undefined);
    }
    if (ended && this.lines.size === 0) this.waitingChanged(false);
  }

  /** The line moved: it is over when empty, else its stall clock starts again. */
  private moved(owner: object, line: Line<Child>): void {
    line.cancelStall();
    if (line.runs.length > 0) return this.watchStall(owner, line);
    this.lines.delete(owner);
    if (this.lines.size === 0) this.waitingChanged(false);
  }

  private watchStall(owner: object, line: Line<Child>): void {
    line.cancelStall = this.clock.after(line.stallMs, () => {
      if (this.lines.get(owner) === line) this.wakeAll(owner);
    });
  }
}

interface Line<Child> {
  readonly runs: Array<(child: Child | undefined) => void>;
  /** How long the line waits with no child given to it. */
  readonly stallMs: number;
  cancelStall: () => void;
}
