import { ScriptChild } from '../script-host/script-child.js';
import { claimEarlyScriptProcess, scriptProcessOptions } from '../script-host/script-process.js';
import type { Log } from '../support/log.js';
import type { Settings } from '../config/settings.js';

/** 1 s: after a pooled child fails to start, the pool waits this long before it starts another. */
const REFILL_AFTER_FAILURE_MS = 1_000;

/**
 * 100 ms: after a run takes a pooled child, the pool waits this long before it starts another.
 * Spawning blocks the server for 1-7 ms (measured), which would otherwise land on the taken
 * child's start and first call.
 */
const REFILL_AFTER_TAKE_MS = 100;

/**
 * 1: until the server has started (its upstreams up, or startupWaitMs over), the pool keeps this many
 * children, the one a first run takes; the rest start REFILL_AFTER_TAKE_MS after. A child's start
 * takes a core for 70-80 ms, and on 2 cores a second one at start-up took that from the server's
 * own loading: spawn to first answer 356 ms with two started at once, 328 ms with one.
 */
const STARTUP_POOL_CHILDREN = 1;

/**
 * 60 s: a session that ran a script, or asked to, within this long counts as active, and the
 * server's children are shared out among the active sessions (ChildSupply.forSession).
 */
export const FAIR_SHARE_WINDOW_MS = 60_000;

/**
 * 10 s: a pool grown for a burst of runs shrinks back to `pool` children once it has been full,
 * with no run taking a child, for this long; the children past `pool` are killed.
 */
export const POOL_SHRINK_AFTER_MS = 10_000;

/**
 * 250 ms: the longest a child whose script has ended is held back from exiting while other
 * scripts run; at most maxScriptChildren are held at once. A process's exit costs the kernel
 * milliseconds of CPU freeing its memory (bench/ANALYSIS.md), which in a burst the first runs to
 * end took from the runs still going: 16 one-call runs at once answered in 48-69 ms with the exits
 * held, 71-101 ms without (the bench's burst row, 10 and 6 runs, builds alternating, on a loaded
 * 2-core host). A held child keeps its memory meanwhile: hence the short hold and the count.
 */
export const RETIRED_HOLD_MAX_MS = 250;

export type Supplied = { readonly child: ScriptChild } | { readonly refused: string };

/** Where a session's scripts get their children. */
export interface ChildSource {
  take(): Supplied;
}

/**
 * The server's script children: at most maxScriptChildren alive, pooled ones included (one whose
 * script has ended and is exiting no longer counts), and
 * `pool` of them started ahead (engine compiled, prelude restored) so a run starts at once.
 * A child serves one script and exits (once no other script runs: retire); the pool refills in
 * the background.
 *
 * The pool grows with bursts: each run that finds it empty adds one child to its size, and until
 * it is full again it keeps at least one for each script running, up to maxScriptChildren; so the
 * next burst like it finds a child ready for every run, whether or not a refill served some of
 * this one. Once it has been full and untouched for POOL_SHRINK_AFTER_MS, it shrinks back to `pool`.
 *
 * Shared fairly between sessions: a session may hold at most its share, maxScriptChildren
 * divided by the sessions active in the last FAIR_SHARE_WINDOW_MS (itself included), at least
 * one. Alone, a session may use every child; once others ask, its runs past its share are
 * refused, so the children its scripts free go to them. Pooled children belong to no session
 * until a run takes one.
 */
export class ChildSupply implements ChildSource {
  private readonly pooled: ScriptChild[] = [];
  /** Children whose script has ended, held back from exiting until no script runs (RETIRED_HOLD_MAX_MS at most). */
  private readonly retired: ScriptChild[] = [];
  private retiredTimer: NodeJS.Timeout | undefined;
  private readonly alive = new Set<ScriptChild>();
  /** The session holding each child taken for a script. */
  private readonly holders = new Map<ScriptChild, object>();
  /** Per session: children held, and when it last asked for one. */
  private readonly sessions = new Map<object, { held: number; askedAt: number }>();
  /** The owner of takes made on the supply itself rather than through forSession. */
  private readonly anyone = {};
  private closed = false;
  private refillTimer: NodeJS.Timeout | undefined;
  private shrinkTimer: NodeJS.Timeout | undefined;
  /** How many children the pool keeps started ahead: `pool`, grown by bursts. */
  private poolSize: number;
  /** Pooled children that failed to start since one last did. */
  private startFailures = 0;
  /** A run found the pool empty and it has not been full since: each take grows it to the scripts running. */
  private ranDry = false;
  /** The server is starting (`ready` has not settled): the pool keeps STARTUP_POOL_CHILDREN. */
  private starting: boolean;
  private readonly refillAfterTakeMs: number;
  private readonly retiredHoldMaxMs: number;
  /** The catalog pooled children are sent ahead of their scripts (offerCatalog), as JSON text. */
  private catalog: string | undefined;

  /**
   * `ready`: the server's start (src/commands/serve-startup.ts), until which the pool holds back the rest of its children.
   * `timing`: REFILL_AFTER_TAKE_MS and RETIRED_HOLD_MAX_MS, longer in tests that need the pool to
   * stay empty after a take, or an ended child held while another script runs.
   */
  constructor(
    private readonly settings: Settings,
    private readonly log: Log = () => {},
    ready?: Promise<unknown>,
    timing: { readonly refillAfterTakeMs?: number; readonly retiredHoldMaxMs?: number } = {},
  ) {
    this.refillAfterTakeMs = timing.refillAfterTakeMs ?? REFILL_AFTER_TAKE_MS;
    this.retiredHoldMaxMs = timing.retiredHoldMaxMs ?? RETIRED_HOLD_MAX_MS;
    this.poolSize = settings.pool;
    this.starting = ready !== undefined;
    this.refill();
    const fill = () => {
      const timer = setTimeout(() => {
        this.starting = false;
        if (this.closed) return;
        // A refill a take scheduled would find the pool as full as this one leaves it.
        clearTimeout(this.refillTimer);
        this.refillTimer = undefined;
        this.refill();
        this.log(`codemode-mcp: started; the pool holds ${this.pooled.length} children`, 'debug');
      }, REFILL_AFTER_TAKE_MS);
      timer.unref();
    };
    ready?.then(fill, fill);
  }

  /** Live children, pooled ones included. */
  get size(): number {
    return this.alive.size;
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

  /** Children started ahead and not yet taken by a run. */
  get pooledCount(): number {
    return this.pooled.length;
  }

  /** How many children the pool keeps started ahead: `pool`, or more once a burst has grown it. */
  get poolTarget(): number {
    return this.poolSize;
  }

  /** A ready (or starting) child for a script, or why there is none. */
  take(): Supplied {
    return this.takeFor(this.anyone);
  }

  /** The supply as one session sees it: what it takes counts against its share. */
  forSession(session: object = {}): ChildSource {
    return { take: () => this.takeFor(session) };
  }

  private takeFor(session: object): Supplied {
    if (this.closed) return { refused: 'the server is shutting down' };
    const now = Date.now();
    const mine = this.sessions.get(session) ?? { held: 0, askedAt: now };
    mine.askedAt = now;
    this.sessions.set(session, mine);
    const active = this.activeSessions(now);
    const share = Math.max(1, Math.floor(this.settings.maxScriptChildren / active));
    // Alone, its share is the whole cap, and the cap's own refusal says more.
    if (active > 1 && mine.held >= share) {
      return {
        refused:
          `this session already runs ${mine.held} script process${mine.held === 1 ? '' : 'es'}, its share of the server's ${this.settings.maxScriptChildren} ` +
          `(maxScriptChildren) while ${active} sessions run scripts; wait for one of its scripts to end, or stop one`,
      };
    }
    const supplied = this.takeChild();
    if ('child' in supplied) {
      mine.held += 1;
      this.holders.set(supplied.child, session);
    }
    return supplied;
  }

  /** Sessions holding a child or asking within the window; the others are forgotten. */
  private activeSessions(now: number): number {
    for (const [session, state] of this.sessions) {
      if (state.held === 0 && now - state.askedAt > FAIR_SHARE_WINDOW_MS) this.sessions.delete(session);
    }
    return this.sessions.size;
  }

  private takeChild(): Supplied {
    clearTimeout(this.shrinkTimer);
    this.shrinkTimer = undefined;
    const pooled = this.pooled.shift();
    const supplied = pooled ? { child: pooled } : this.spawnForRun();
    if (pooled) this.refillAfter(this.refillAfterTakeMs);
    if (this.settings.pool > 0) this.grow(pooled === undefined);
    return supplied;
  }

  /**
   * Runs arrive faster than the pool refills: one more child ready for each run that found it
   * empty (runs in quick succession), and at least one for each run going at once, those a
   * refill served counted too (a burst), until the pool is full again.
   */
  private grow(foundEmpty: boolean): void {
    if (foundEmpty) {
      this.ranDry = true;
      this.poolSize += 1;
    }
    if (this.ranDry) this.poolSize = Math.min(Math.max(this.poolSize, this.running()), this.settings.maxScriptChildren);
  }

  private spawnForRun(): Supplied {
    const counted = this.counted();
    if (counted >= this.settings.maxScriptChildren) {
      return {
        refused:
          `the server already runs ${counted} script processes, its maxScriptChildren; ` +
          'wait for a script to end, stop one, or raise --max-script-children',
      };
    }
    return { child: this.spawn(false) };
  }

  /** Children taken for scripts that have not ended. */
  private running(): number {
    return this.counted() - this.pooled.length;
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

  /** Kills the pooled children and waits until every child the supply started has exited. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.refillTimer);
    clearTimeout(this.shrinkTimer);
    this.releaseRetired();
    for (const child of this.pooled.splice(0)) child.kill();
    await Promise.all([...this.alive].map((child) => child.gone));
  }

  private spawn(warm: boolean): ScriptChild {
    const options = scriptProcessOptions(this.settings, warm);
    // A pooled child may have been spawned already, when the server started (src/commands/serve-stdio/early-start.ts).
    const child = new ScriptChild(
      { ...options, onEnding: (ended) => this.retire(ended) },
      warm ? claimEarlyScriptProcess(options) : undefined,
    );
    this.alive.add(child);
    void child.gone.then(() => {
      this.alive.delete(child);
      const holder = this.holders.get(child);
      this.holders.delete(child);
      const state = holder === undefined ? undefined : this.sessions.get(holder);
      if (state !== undefined) state.held -= 1;
      const index = this.pooled.indexOf(child);
      if (index !== -1) this.pooled.splice(index, 1);
      const held = this.retired.indexOf(child);
      if (held !== -1) this.retired.splice(held, 1);
      this.refill();
    });
    return child;
  }

  /**
   * A child whose script has ended exits once no script runs, so its exit's CPU comes after the
   * answers of a burst rather than among them; at most RETIRED_HOLD_MAX_MS later, and at most
   * maxScriptChildren of them held at once.
   */
  private retire(child: ScriptChild): void {
    if (this.closed) return child.release();
    this.retired.push(child);
    if (this.retired.length > this.settings.maxScriptChildren) this.retired.shift()!.release();
    this.retiredTimer ??= setTimeout(() => this.releaseRetired(), this.retiredHoldMaxMs);
    // On the next turn, after the write of the last script's answer; unless a script started meanwhile.
    if (this.running() === 0) {
      setImmediate(() => {
        if (this.running() === 0) this.releaseRetired();
      });
    }
  }

  private releaseRetired(): void {
    clearTimeout(this.retiredTimer);
    this.retiredTimer = undefined;
    for (const child of this.retired.splice(0)) child.release();
  }

  /** Starts children until the pool is full, within the server's cap; one at most while scripts run. */
  private refill(): void {
    if (this.closed || this.refillTimer) return;
    const target = this.starting ? Math.min(this.poolSize, STARTUP_POOL_CHILDREN) : this.poolSize;
    while (this.pooled.length < target && this.counted() < this.settings.maxScriptChildren) {
      // A child's start takes a core for a third of a second: while scripts run, it would slow them,
      // so the pool refills then only when empty (a run would otherwise wait for a start), and fully
      // once none runs (the exit of the last one calls refill).
      if (this.pooled.length > 0 && this.counted() > this.pooled.length) break;
      const child = this.spawn(true);
      if (this.catalog !== undefined) child.offerCatalog(this.catalog);
      this.pooled.push(child);
      // A pooled child that could not start is gone (its exit removes it): try again later, not in a loop.
      child.ready.then(
        () => (this.startFailures = 0),
        (error: unknown) => {
          this.logStartFailure(error);
          this.refillAfter(REFILL_AFTER_FAILURE_MS);
        },
      );
    }
    if (this.pooled.length < this.poolSize) return;
    if (this.ranDry && this.poolSize > this.settings.pool) {
      this.log(
        `codemode-mcp: runs came faster than the pool refilled: it keeps ${this.poolSize} children ready, ` +
          `until idle for ${POOL_SHRINK_AFTER_MS / 1000} s`,
      );
    }
    this.ranDry = false;
    this.shrinkWhenIdle();
  }

  /** Once a grown pool is full, starts the idle clock (a take stops it): past it, back to `pool` children. */
  private shrinkWhenIdle(): void {
    if (this.poolSize === this.settings.pool || this.shrinkTimer) return;
    this.shrinkTimer = setTimeout(() => {
      this.shrinkTimer = undefined;
      this.log(
        `codemode-mcp: the pool was full and idle for ${POOL_SHRINK_AFTER_MS / 1000} s: it shrinks back from ${this.poolSize} to ${this.settings.pool} children`,
      );
      this.poolSize = this.settings.pool;
      for (const child of this.pooled.splice(this.poolSize)) child.kill();
    }, POOL_SHRINK_AFTER_MS);
    this.shrinkTimer.unref();
  }

  /** Said at `warn` the first time since a pooled child last started, then at `debug`: the pool tries again each second. */
  private logStartFailure(error: unknown): void {
    if (this.closed) return;
    this.log(
      `codemode-mcp: a pooled script process could not start: ${(error as Error).message}; the pool tries again in ${REFILL_AFTER_FAILURE_MS / 1000} s`,
      this.startFailures++ === 0 ? 'warn' : 'debug',
    );
  }

  private refillAfter(ms: number): void {
    if (this.closed || this.refillTimer) return;
    this.refillTimer = setTimeout(() => {
      this.refillTimer = undefined;
      this.refill();
    }, ms);
    this.refillTimer.unref();
  }
}
