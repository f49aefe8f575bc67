import type { ScriptChild } from '../script-host/script-child.js';
import type { Log } from '../support/log.js';
import type { Settings } from '../config/settings.js';
import { systemClock, type Clock } from './clock.js';
import { FairShare } from './fair-share.js';
import { POOL_SHRINK_AFTER_MS, PoolSize, childrenToStart } from './pool-size.js';
import { REFILL_AFTER_FAILURE_MS, REFILL_AFTER_TAKE_MS, RefillPace } from './refill-pace.js';
import { RETIRED_HOLD_MAX_MS, RetiredHold } from './retired-hold.js';
import { activeTelemetry } from '../telemetry/telemetry.js';

export type Supplied<Child = ScriptChild> = { readonly child: Child } | { readonly refused: string };

/** Where a session's scripts get their children. */
export interface ChildSource<Child = ScriptChild> {
  take(): Supplied<Child>;
}

/** What the pool needs of a child: a ScriptChild (child-supply.ts), or a test's fake. */
export interface PoolChild {
  /** Resolves when the child is ready for a script; rejects when it could not start. */
  readonly ready: Promise<void>;
  /** Resolves when the child has exited and its traces are removed. */
  readonly gone: Promise<void>;
  /** Its script has ended, or it has exited: it is on its way out. */
  readonly ending: boolean;
  /** Sends the catalog ahead of a script (ScriptChild.offerCatalog). */
  offerCatalog(toolsJson: string): void;
  /** Lets a child whose script has ended exit. */
  release(): void;
  kill(): void;
}

/**
 * Starts a child, `warm` for the pool (it has time to spare) or not for a run that found the pool
 * empty; `onEnding` is called when its script has ended, and it exits once released.
 */
export type StartChild<Child> = (warm: boolean, onEnding: (child: Child) => void) => Child;

/** The settings the pool reads. */
export type PoolSettings = Pick<Settings, 'pool' | 'maxScriptChildren'>;

/**
 * The server's script children: at most maxScriptChildren alive, pooled ones included (one whose
 * script has ended and is exiting no longer counts), and some started ahead so a run starts at
 * once. A child serves one script and exits (once no other script runs); the pool refills in the
 * background. This class starts, hands out and kills the children; what it decides by is in its
 * policies: how many to keep (PoolSize), when to refill (RefillPace), which session may take one
 * (FairShare), when an ended child exits (RetiredHold). Pooled children belong to no session until
 * a run takes one. What a child is, it leaves to `start` (ChildSupply: a script's process).
 */
export class ChildPool<Child extends PoolChild> implements ChildSource<Child> {
  private readonly pooled: Child[] = [];
  private readonly alive = new Set<Child>();
  /** The owner of takes made on the supply itself rather than through forSession. */
  private readonly anyone = {};
  private readonly fairShare: FairShare<Child>;
  private readonly poolSize: PoolSize;
  private readonly pace: RefillPace;
  private readonly retired: RetiredHold<Child>;
  private closed = false;
  /** Set by drain(): why every take is refused from then on. */
  private drainRefusal: string | undefined;
  /** drain()'s callers, told once no script runs. */
  private readonly idleWaiters: Array<() => void> = [];
  /** Pooled children that failed to start since one last did. */
  private startFailures = 0;
  /** The catalog pooled children are sent ahead of their scripts (offerCatalog), as JSON text. */
  private catalog: string | undefined;

  /**
   * `start`: starts one child (ChildSupply: a script's process; a test: a fake).
   * `ready`: the server's start (src/commands/serve-startup.ts), until which the pool holds back the rest of its children.
   * `clock`: the policies' time; a test's fake one keeps the pool empty after a take, or an ended child held,
   * for as long as the test needs.
   */
  constructor(
    private readonly settings: PoolSettings,
    private readonly start: StartChild<Child>,
    private readonly log: Log = () => {},
    ready?: Promise<unknown>,
    clock: Clock = systemClock,
  ) {
    this.fairShare = new FairShare(settings.maxScriptChildren, clock);
    this.poolSize = new PoolSize(
      settings,
      clock,
      { grown: (size) => this.sayGrown(size), shrunk: (from, to) => this.shrink(from, to) },
      ready !== undefined,
    );
    this.pace = new RefillPace(clock, () => this.refill());
    this.retired = new RetiredHold({ maxHeld: settings.maxScriptChildren, holdMaxMs: RETIRED_HOLD_MAX_MS }, clock, (child) =>
      child.release(),
    );
    this.refill();
    this.sayPoolSize();
    const fill = (): void => {
      clock.after(REFILL_AFTER_TAKE_MS, () => {
        this.poolSize.started();
        if (this.closed) return;
        // A refill a take scheduled would find the pool as full as this one leaves it.
        this.pace.cancel();
        this.refill();
        this.log(`codemode-mcp: started; the pool holds ${this.pooled.length} children`, 'debug');
      });
    };
    ready?.then(fill, fill);
  }

  /** Live children, pooled ones included. */
  get size(): number {
    return this.alive.size;
  }

  /** Children started ahead and not yet taken by a run. */
  get pooledCount(): number {
    return this.pooled.length;
  }

  /** How many children the pool keeps started ahead: `pool`, or more once a burst has grown it. */
  get poolTarget(): number {
    return this.poolSize.target;
  }

  /** A ready (or starting) child for a script, or why there is none. */
  take(): Supplied<Child> {
    return this.takeFor(this.anyone);
  }

  /** The supply as one session sees it: what it takes counts against its share. */
  forSession(session: object = {}): ChildSource<Child> {
    return { take: () => this.takeFor(session) };
  }

  /**
   * The catalog scripts are given now (JSON text of ToolEntry[]): each pooled child is sent it,
   * and each started from here on, so it is ready in the child before a script comes
   * (ScriptChild.offerCatalog). Called again whenever the catalog changes.
   */
  offerCatalog(toolsJson: string): void {
    this.catalog = toolsJson;
    for (const child of this.pooled) child.offerCatalog(toolsJson);
  }

  /**
   * Takes no more children (each take is refused with `refusal`, which says what to do) and starts
   * none ahead; resolves once no script runs, the running ones ending as they would.
   */
  drain(refusal: string): Promise<void> {
    this.drainRefusal = refusal;
    this.pace.cancel();
    const idle = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    this.sayIfIdle();
    return idle;
  }

  /** Kills the pooled children and waits until every child the supply started has exited. */
  async close(): Promise<void> {
    this.closed = true;
    this.pace.cancel();
    this.poolSize.stop();
    this.retired.releaseAll();
    for (const child of this.pooled.splice(0)) child.kill();
    this.sayPoolSize();
    await Promise.all([...this.alive].map((child) => child.gone));
  }

  private takeFor(session: object): Supplied<Child> {
    if (this.closed) return { refused: 'the server is shutting down' };
    if (this.drainRefusal !== undefined) return { refused: this.drainRefusal };
    const refused = this.fairShare.refusal(session);
    if (refused !== undefined) return { refused };
    const supplied = this.takeChild();
    if ('child' in supplied) this.fairShare.took(session, supplied.child);
    return supplied;
  }

  private takeChild(): Supplied<Child> {
    const pooled = this.pooled.shift();
    const supplied = pooled ? { child: pooled } : this.startForRun();
    if (pooled) {
      this.pace.afterTake();
      this.sayPoolSize();
    }
    this.poolSize.took(pooled === undefined, this.running());
    return supplied;
  }

  private startForRun(): Supplied<Child> {
    const counted = this.counted();
    if (counted >= this.settings.maxScriptChildren) {
      return {
        refused:
          `the server already runs ${counted} script processes, its maxScriptChildren; ` +
          'wait for a script to end, stop one, or raise --max-script-children',
      };
    }
    return { child: this.startChild(false) };
  }

  /**
   * Live children that count against maxScriptChildren: one whose script has ended is on its way
   * out, and doesn't hold back the next burst.
   */
  private counted(): number {
    let count = 0;
    for (const child of this.alive) if (!child.ending) count++;
    return count;
  }

  /** Children taken for scripts that have not ended. */
  private running(): number {
    return this.counted() - this.pooled.length;
  }

  private startChild(warm: boolean): Child {
    const child = this.start(warm, (ended) => this.retire(ended));
    this.alive.add(child);
    activeTelemetry().childSpawned(warm, child.ready);
    void child.gone.then(() => {
      this.alive.delete(child);
      this.fairShare.returned(child);
      const index = this.pooled.indexOf(child);
      if (index !== -1) {
        this.pooled.splice(index, 1);
        this.sayPoolSize();
      }
      this.retired.forget(child);
      this.refill();
      this.sayIfIdle();
    });
    return child;
  }

  /** A child whose script has ended is held (RetiredHold), and all held go once no script runs. */
  private retire(child: Child): void {
    this.fairShare.returned(child);
    if (this.closed) return child.release();
    this.retired.hold(child);
    this.sayIfIdle();
    // On the next turn, after the write of the last script's answer; unless a script started meanwhile.
    if (this.running() === 0) {
      setImmediate(() => {
        if (this.running() === 0) this.retired.releaseAll();
      });
    }
  }

  /** Starts children until the pool is full, as far as PoolSize and the server's cap allow. */
  private refill(): void {
    if (this.closed || this.drainRefusal !== undefined || this.pace.paused) return;
    const start = childrenToStart({
      pooled: this.pooled.length,
      counted: this.counted(),
      target: this.poolSize.refillTarget,
      maxScriptChildren: this.settings.maxScriptChildren,
    });
    for (let started = 0; started < start; started++) this.startPooled();
    if (start > 0) this.sayPoolSize();
    this.poolSize.refilled(this.pooled.length);
  }

  private startPooled(): void {
    const child = this.startChild(true);
    if (this.catalog !== undefined) child.offerCatalog(this.catalog);
    this.pooled.push(child);
    // A pooled child that could not start is gone (its exit removes it): try again later, not in a loop.
    child.ready.then(
      () => (this.startFailures = 0),
      (error: unknown) => {
        this.logStartFailure(error);
        if (!this.closed) this.pace.afterFailure();
      },
    );
  }

  /** Tells drain()'s callers once no script runs: on the next turn, after the write of the last script's answer. */
  private sayIfIdle(): void {
    if (this.idleWaiters.length === 0 || this.running() > 0) return;
    setImmediate(() => {
      if (this.running() <= 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    });
  }

  private sayGrown(size: number): void {
    this.log(
      `codemode-mcp: runs came faster than the pool refilled: it keeps ${size} children ready, ` +
        `until idle for ${POOL_SHRINK_AFTER_MS / 1000} s`,
    );
  }

  private shrink(from: number, to: number): void {
    this.log(
      `codemode-mcp: the pool was full and idle for ${POOL_SHRINK_AFTER_MS / 1000} s: it shrinks back from ${from} to ${to} children`,
    );
    for (const child of this.pooled.splice(to)) child.kill();
    this.sayPoolSize();
  }

  /** Tells telemetry how many children wait in the pool (a gauge), at each change. */
  private sayPoolSize(): void {
    activeTelemetry().poolSize(this.pooled.length);
  }

  /** Said at `warn` the first time since a pooled child last started, then at `debug`: the pool tries again each second. */
  private logStartFailure(error: unknown): void {
    if (this.closed) return;
    this.log(
      `codemode-mcp: a pooled script process could not start: ${(error as Error).message}; the pool tries again in ${REFILL_AFTER_FAILURE_MS / 1000} s`,
      this.startFailures++ === 0 ? 'warn' : 'debug',
    );
  }
}
