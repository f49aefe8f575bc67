import type { ScriptChild } from '../script-host/script-child.js';
import type { Log } from '../support/log.js';
import type { Settings } from '../config/settings.js';
import { systemClock, type Clock } from './clock.js';
import { FairShare } from './fair-share.js';
import { POOL_SHRINK_AFTER_MS, PoolSize, childrenToStart } from './pool-size.js';
import { REFILL_AFTER_FAILURE_MS, REFILL_AFTER_TAKE_MS, RefillPace } from './refill-pace.js';
import { RETIRED_HOLD_MAX_MS, RetiredHold } from './retired-hold.js';
import { ReusedChildren } from './reused-children.js';
import { ChildTimings, RESET_WAIT_MAX_MS, WaitingRuns, reuseWaitMs } from './reuse-wait.js';
import { activeTelemetry } from '../telemetry/telemetry.js';

export type Supplied<Child = ScriptChild> = { readonly child: Child } | { readonly refused: string };

/** Where a session's scripts get their children. */
export interface ChildSource<Child = ScriptChild> {
  /** A child for a run now, or once one of the session's own is free again (when that is sooner than a start). */
  take(): Supplied<Child> | Promise<Supplied<Child>>;
  /** The session is over: the children kept for its next scripts go. */
  done(): void;
}

/** What the pool needs of a child: a ScriptChild (child-supply.ts), or a test's fake. */
export interface PoolChild {
  /** Resolves when the child is ready for a script; rejects when it could not start. */
  readonly ready: Promise<void>;
  /** Resolves when the child has exited and its traces are removed. */
  readonly gone: Promise<void>;
  /** Its script has ended, or it has exited: it is on its way out. */
  readonly ending: boolean;
  /** Its script ended with the engine intact, and it was neither killed nor let go: it may be reset. */
  readonly reusable: boolean;
  /** Scripts it has been given. */
  readonly scripts: number;
  /** Sends the catalog ahead of a script (ScriptChild.offerCatalog). */
  offerCatalog(toolsJson: string): void;
  /** Makes a reusable child ready for another script; `ready` is then the fresh engine's. */
  reset(): void;
  /** Lets a child whose script has ended exit. */
  release(): void;
  kill(): void;
}

/**
 * Starts a child, `warm` for the pool (it has time to spare) or not for a run that found the pool
 * empty; `onEnding` is called when its script has ended, and it exits once released.
 */
export type StartChild<Child> = (warm: boolean, onEnding: (child: Child) => void) => Child;

/**
 * 10 s, as a grown pool's shrink (POOL_SHRINK_AFTER_MS): a child kept for an owner that has not
 * taken it for this long goes, when more are kept than the pool has room for (keptRoom).
 */
const KEPT_IDLE_MS = POOL_SHRINK_AFTER_MS;

/** The settings the pool reads. */
export type PoolSettings = Pick<Settings, 'pool' | 'maxScriptChildren' | 'childMaxScripts' | 'childMaxAgeMs'>;

/**
 * The server's script children: at most maxScriptChildren alive, pooled ones included (one whose
 * script has ended and is exiting no longer counts), and some started ahead so a run starts at
 * once. A child runs one script at a time. When its script ends with the engine intact, it is
 * reset (a fresh engine in the same process) and kept for the next script of the same session or
 * principal, never another's, up to childMaxScripts and childMaxAgeMs; otherwise it exits (once no
 * other script runs), and the pool refills in the background. Children kept for their owners
 * count against the pool's size, so a server at rest holds `pool` children either way. This class
 * starts, hands out and kills the children; what it decides by is in its policies: how many to
 * keep (PoolSize), when to refill (RefillPace), which session may take one (FairShare), which
 * child to reuse (ReusedChildren), when an ended child exits (RetiredHold). Pooled children belong
 * to no session until a run takes one. What a child is, it leaves to `start` (ChildSupply: a
 * script's process).
 */
export class ChildPool<Child extends PoolChild> {
  private readonly pooled: Child[] = [];
  private readonly alive = new Set<Child>();
  /** The owner of takes made on the supply itself rather than through forSession. */
  private readonly anyone = {};
  private readonly fairShare: FairShare<Child>;
  private readonly poolSize: PoolSize;
  private readonly pace: RefillPace;
  private readonly retired: RetiredHold<Child>;
  private readonly reused: ReusedChildren<Child>;
  private readonly timings = new ChildTimings();
  private readonly waiting: WaitingRuns<Child>;
  /** Children the pool let go that have not exited yet (kept ones past the pool's size): they no longer count. */
  private readonly leaving = new Set<Child>();
  /** Children the pool killed itself: one killed while it started did not fail to start. */
  private readonly dismissed = new WeakSet<Child>();
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
    private readonly clock: Clock = systemClock,
  ) {
    this.fairShare = new FairShare(settings.maxScriptChildren, clock);
    this.reused = new ReusedChildren(settings, clock);
    this.waiting = new WaitingRuns(clock, (waiting) => (waiting ? this.pace.whileRunsWait() : this.pace.runsServed()));
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

  /** Children reset after a script and kept for their owner's next (being reset included). */
  get keptCount(): number {
    return this.reused.idleCount;
  }

  /** How many children the pool keeps started ahead: `pool`, or more once a burst has grown it. */
  get poolTarget(): number {
    return this.poolSize.target;
  }

  /** A ready (or starting) child for a script, or why there is none. */
  take(): Supplied<Child> {
    return this.takeNow(this.anyone);
  }

  /** The supply as one session sees it: what it takes counts against its share, and only it reuses its children. */
  forSession(session: object = {}): ChildSource<Child> {
    return {
      take: () => this.takeFor(session),
      done: () => {
        this.waiting.wakeAll(session);
        this.letGoAll(this.reused.takeAll(session));
      },
    };
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
    this.waiting.wakeAll();
    this.letGoAll(this.reused.takeAll());
    const idle = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    this.sayIfIdle();
    return idle;
  }

  /** Kills the pooled and kept children and waits until every child the supply started has exited. */
  async close(): Promise<void> {
    this.closed = true;
    this.pace.cancel();
    this.waiting.wakeAll();
    this.poolSize.stop();
    this.retired.releaseAll();
    for (const child of this.pooled.splice(0)) child.kill();
    this.letGoAll(this.reused.takeAll());
    this.sayPoolSize();
    await Promise.all([...this.alive].map((child) => child.gone));
  }

  /**
   * A child for `session`'s run: one kept for it, or a pooled one, or one of its own running
   * children once reset when that is sooner than starting one (reuseWaitMs, from what the pool
   * measured), or one started now.
   */
  private takeFor(session: object): Supplied<Child> | Promise<Supplied<Child>> {
    const waitMs = this.waitMsFor(session);
    if (waitMs === undefined) return this.takeNow(session);
    return this.waiting.wait(session, waitMs).then((child) => {
      if (child === undefined) return this.takeNow(session);
      // Handed over as the pool began to close or drain: it goes with the rest.
      if (this.closed || this.drainRefusal !== undefined) {
        this.letGo(child);
        return this.takeNow(session);
      }
      return this.handOut(session, this.takeKept(child));
    });
  }

  /** How long `session`'s run waits for one of its own children, or undefined to be served now. */
  private waitMsFor(session: object): number | undefined {
    if (this.closed || this.drainRefusal !== undefined || this.reused.keptBy(session) > 0) return undefined;
    if (this.shareRefusal(session) !== undefined) return undefined;
    // One being reset is the owner's in a few milliseconds, sooner than any start (and than a refusal
    // at the cap); a pooled child stays for another session's run rather than become a second of this one's.
    if (this.waiting.count(session) < this.reused.resettingBy(session)) return RESET_WAIT_MAX_MS;
    if (this.pooled.length > 0) return undefined;
    return reuseWaitMs({
      startMs: this.timings.startTime,
      turnMs: this.timings.turnOf(session),
      busyFor: this.reused.busyFor(session),
    });
  }

  /**
   * Why `session`'s share allows it no child now (FairShare). A child that has exited counts no more
   * from its exit, not from when its directory is removed (gone): a script stopped by a kill is
   * answered at the exit, and its session's next run may come before the removal ends.
   */
  private shareRefusal(session: object): string | undefined {
    for (const child of this.alive) if (child.ending) this.fairShare.returned(child);
    return this.fairShare.refusal(session);
  }

  private takeNow(session: object): Supplied<Child> {
    if (this.closed) return { refused: 'the server is shutting down' };
    if (this.drainRefusal !== undefined) return { refused: this.drainRefusal };
    const refused = this.shareRefusal(session);
    if (refused !== undefined) return { refused };
    const kept = this.reused.take(session, (old) => this.letGo(old));
    return this.handOut(session, kept !== undefined ? this.takeKept(kept) : this.takeChild());
  }

  private handOut(session: object, supplied: Supplied<Child>): Supplied<Child> {
    if ('child' in supplied) {
      this.fairShare.took(session, supplied.child);
      // The pool's own takes (take()) belong to no session, so their children are not reused.
      if (session !== this.anyone) this.reused.took(session, supplied.child);
    }
    return supplied;
  }

  /** One of the session's own children, kept since its last script: ready now, with a fresh engine. */
  private takeKept(child: Child): Supplied<Child> {
    this.poolSize.took(false, this.running());
    if (this.catalog !== undefined) child.offerCatalog(this.catalog);
    return { child };
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
    // At the cap, a child kept idle for another owner makes room first: the oldest.
    if (this.counted() >= this.settings.maxScriptChildren) {
      for (const spare of this.reused.trimTo(this.reused.keptCount - 1)) this.letGo(spare);
    }
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
   * out (unless it is being reset), and doesn't hold back the next burst; nor does one let go.
   */
  private counted(): number {
    let count = 0;
    for (const child of this.alive) if (!child.ending && !this.leaving.has(child)) count++;
    return count;
  }

  /** Children taken for scripts that have not ended. */
  private running(): number {
    return this.counted() - this.pooled.length - this.reused.idleCount;
  }

  private startChild(warm: boolean): Child {
    const child = this.start(warm, (ended) => this.retire(ended));
    this.alive.add(child);
    this.reused.started(child);
    const spawned = this.clock.now();
    child.ready.then(
      () => this.timings.started(this.clock.now() - spawned, !warm),
      () => {},
    );
    activeTelemetry().childSpawned(warm, child.ready);
    void child.gone.then(() => {
      this.alive.delete(child);
      this.leaving.delete(child);
      this.reused.forget(child);
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

  /**
   * A child whose script has ended: reset for its owner's next script when it may be (ReusedChildren;
   * never with the pool off); else held (RetiredHold), and all held go once no script runs.
   */
  private retire(child: Child): void {
    this.fairShare.returned(child);
    if (this.closed) return child.release();
    if (this.settings.pool > 0 && this.drainRefusal === undefined && this.reused.mayReuse(child)) return this.reuse(child);
    this.wakeWaiterOf(child);
    this.reused.forget(child);
    this.retired.hold(child);
    this.sayIfIdle();
    // On the next turn, after the write of the last script's answer; unless a script started meanwhile.
    if (this.running() === 0) {
      setImmediate(() => {
        if (this.running() === 0) this.retired.releaseAll();
      });
    }
  }

  /** Resets `child` for its owner; kept once its fresh engine is ready, let go if the pool no longer wants it then. */
  private reuse(child: Child): void {
    const owner = this.reused.ownerOf(child)!;
    child.reset();
    this.reused.resetting(child);
    child.ready.then(
      () => {
        // Its turn: from being handed its script to being ready for the next.
        this.timings.turned(owner, this.reused.sinceHanded(child)!);
        if (this.closed || this.drainRefusal !== undefined || child.ending || !this.reused.keep(child)) {
          this.wakeWaiterOf(child);
          return this.letGo(child);
        }
        if (this.waiting.count(owner) > 0) this.giveKept(owner);
        else this.watchKept(child);
        this.trimPooled();
        this.refill();
        this.sayIfIdle();
      },
      // It exited while being reset: its exit forgets it, and its owner's next run takes another child.
      () => this.wakeWaiterOf(child),
    );
    this.sayIfIdle();
  }

  /**
   * Lets `child` go once it has waited KEPT_IDLE_MS for its owner, if more children are kept than
   * the pool has room for (keptRoom), or it is past childMaxAgeMs; else looks again after as long.
   * While its owner runs scripts, a child is kept whatever the pool's size.
   */
  private watchKept(child: Child): void {
    this.clock.after(KEPT_IDLE_MS, () => {
      if (!this.reused.isKept(child)) return;
      if (this.reused.keptCount <= keptRoom(this.poolSize.target) && !this.reused.pastAge(child)) return this.watchKept(child);
      this.letGo(child);
      this.refill();
    });
  }

  /** Hands one of `owner`'s kept children to its first waiting run (or, were all too old, lets that run go on). */
  private giveKept(owner: object): void {
    const child = this.reused.take(owner, (old) => this.letGo(old));
    if (child === undefined) this.waiting.wakeOne(owner);
    else this.waiting.give(owner, child);
  }

  /** A run waiting for `child`'s owner's children is served otherwise: `child` won't be free for it. */
  private wakeWaiterOf(child: Child): void {
    const owner = this.reused.ownerOf(child);
    if (owner !== undefined) this.waiting.wakeOne(owner);
  }

  /** The children the pool keeps for anyone: its target less those its owners hold (running a script, being reset or kept), up to keptRoom. */
  private pooledTarget(target: number): number {
    return target - Math.min(this.reused.ownedCount, keptRoom(target));
  }

  /** Pooled children past pooledTarget, once children are kept for owners, are let go: a server at rest holds `pool` children. */
  private trimPooled(): void {
    const extra = this.pooled.length - this.pooledTarget(this.poolSize.target);
    if (extra <= 0) return;
    for (const child of this.pooled.splice(0, extra)) this.letGo(child);
    this.sayPoolSize();
  }

  /** Kills a child that waits for no script (pooled, or kept): it no longer counts from now. */
  private letGo(child: Child): void {
    this.reused.forget(child);
    this.leaving.add(child);
    this.dismissed.add(child);
    child.kill();
  }

  private letGoAll(children: readonly Child[]): void {
    for (const child of children) this.letGo(child);
    this.refill();
  }

  /** Starts children until the pool is full, as far as PoolSize and the server's cap allow. */
  private refill(): void {
    if (this.closed || this.drainRefusal !== undefined || this.pace.paused) return;
    const start = childrenToStart({
      pooled: this.pooled.length,
      kept: this.reused.idleCount,
      counted: this.counted(),
      target: this.pooledTarget(this.poolSize.refillTarget),
      maxScriptChildren: this.settings.maxScriptChildren,
    });
    for (let started = 0; started < start; started++) this.startPooled();
    if (start > 0) this.sayPoolSize();
    // Full counts the children kept for their owners: they are the pool's too.
    this.poolSize.refilled(this.pooled.length + this.reused.idleCount);
  }

  private startPooled(): void {
    const child = this.startChild(true);
    if (this.catalog !== undefined) child.offerCatalog(this.catalog);
    this.pooled.push(child);
    // A pooled child that could not start is gone (its exit removes it): try again later, not in a loop.
    child.ready.then(
      () => (this.startFailures = 0),
      (error: unknown) => {
        // Killed by the pool as it started (a shrink, a close): no failure, nothing to wait before the next.
        if (this.dismissed.has(child)) return;
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
    for (const child of this.reused.trimTo(keptRoom(to))) this.letGo(child);
    for (const child of this.pooled.splice(this.pooledTarget(to))) this.letGo(child);
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

/**
 * How many of a pool of `target` children may be kept for their owners' next scripts: all but one
 * (kept for a session's first run, whoever's it is), or the one of a pool of one; none with the
 * pool off. The rest of the target is pooled for anyone.
 */
export function keptRoom(target: number): number {
  return target <= 1 ? target : target - 1;
}
