import type { Cancel, Clock } from './clock.js';

/**
 * 10 s: a pool grown for a burst of runs shrinks back to `pool` children once it has been full,
 * with no run taking a child, for this long; the children past `pool` are killed.
 */
export const POOL_SHRINK_AFTER_MS = 10_000;

/**
 * 1: until the server has started (its upstreams up, or startupWaitMs over), the pool keeps this
 * many children, the one a first run takes: a child's start takes a core for tens of milliseconds,
 * which a second one at start-up would take from the server's own loading (docs/architecture.md,
 * "Startup").
 */
const STARTUP_POOL_CHILDREN = 1;

export interface PoolSizeLimits {
  /** The `pool` setting: the size the pool keeps, and shrinks back to. */
  readonly pool: number;
  /** The `maxScriptChildren` setting: the pool never grows past it. */
  readonly maxScriptChildren: number;
}

export interface PoolSizeEvents {
  /** A burst grew the pool and it is full again, at `size` children. */
  grown(size: number): void;
  /** Full and idle for POOL_SHRINK_AFTER_MS: the pool keeps `to` children again; the pooled ones past it go. */
  shrunk(from: number, to: number): void;
}

/**
 * How many children the pool keeps started ahead. `pool` of them, grown by bursts: each run that
 * finds it empty adds one, and until it is full again it keeps at least one for each script
 * running, up to maxScriptChildren; so the next burst like it finds a child ready for every run,
 * whether or not a refill served some of this one. Once it has been full and untouched for
 * POOL_SHRINK_AFTER_MS, it shrinks back to `pool`. While the server starts, it keeps
 * STARTUP_POOL_CHILDREN at most.
 */
export class PoolSize {
  private size: number;
  /** A run found the pool empty and it has not been full since: each take grows it to the scripts running. */
  private ranDry = false;
  private cancelShrink: Cancel | undefined;

  constructor(
    private readonly limits: PoolSizeLimits,
    private readonly clock: Clock,
    private readonly events: PoolSizeEvents,
    /** The server is starting: the pool keeps STARTUP_POOL_CHILDREN until `started`. */
    private starting = false,
  ) {
    this.size = limits.pool;
  }

  /** The children the pool keeps: `pool`, or more once a burst has grown it. */
  get target(): number {
    return this.size;
  }

  /** The children a refill fills the pool to now: `target`, or fewer while the server starts. */
  get refillTarget(): number {
    return this.starting ? Math.min(this.size, STARTUP_POOL_CHILDREN) : this.size;
  }

  /** The server has started: the pool fills to its target. */
  started(): void {
    this.starting = false;
  }

  /**
   * A run took a child: the pool's idle clock stops, and it grows when runs come faster than it
   * refills: one more child ready for a run that found it empty (runs in quick succession), and at
   * least one for each of the `running` scripts, those a refill served counted too (a burst), until
   * the pool is full again.
   */
  took(foundEmpty: boolean, running: number): void {
    this.cancelShrink?.();
    this.cancelShrink = undefined;
    if (this.limits.pool === 0) return;
    if (foundEmpty) {
      this.ranDry = true;
      this.size += 1;
    }
    if (this.ranDry) this.size = Math.min(Math.max(this.size, running), this.limits.maxScriptChildren);
  }

  /** A refill left `pooled` children in the pool: once it is full, a grown pool starts its idle clock. */
  refilled(pooled: number): void {
    if (pooled < this.size) return;
    if (this.ranDry && this.size > this.limits.pool) this.events.grown(this.size);
    this.ranDry = false;
    if (this.size === this.limits.pool || this.cancelShrink !== undefined) return;
    this.cancelShrink = this.clock.after(POOL_SHRINK_AFTER_MS, () => {
      this.cancelShrink = undefined;
      const from = this.size;
      this.size = this.limits.pool;
      this.events.shrunk(from, this.size);
    });
  }

  /** The pool is closing: its idle clock stops. */
  stop(): void {
    this.cancelShrink?.();
    this.cancelShrink = undefined;
  }
}

/**
 * How many children a refill starts, with `pooled` in the pool, `kept` idle for their owners' next
 * scripts (src/scripts/reused-children.ts) and `counted` alive against the cap (those whose script
 * has ended not counted): up to `target` in the pool within `maxScriptChildren`. A child's start
 * takes a core for a while: while scripts run, it would slow them, so the pool refills then only
 * when empty (a run would otherwise wait for a start), and with one child; fully once none runs.
 */
export function childrenToStart(pool: {
  readonly pooled: number;
  readonly kept: number;
  readonly counted: number;
  readonly target: number;
  readonly maxScriptChildren: number;
}): number {
  const room = Math.max(0, Math.min(pool.target - pool.pooled, pool.maxScriptChildren - pool.counted));
  const scriptsRun = pool.counted - pool.kept > pool.pooled;
  if (!scriptsRun) return room;
  return pool.pooled === 0 ? Math.min(1, room) : 0;
}
