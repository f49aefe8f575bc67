import { ScriptChild } from '../isolate/script-child.js';
import type { Settings } from '../settings.js';

/** 1 s: after a pooled child fails to start, the pool waits this long before it starts another. */
const REFILL_AFTER_FAILURE_MS = 1_000;

/**
 * 100 ms: after a run takes a pooled child, the pool waits this long before it starts another.
 * Spawning blocks the server for 1-7 ms (measured), which would otherwise land on the taken
 * child's start and first call.
 */
const REFILL_AFTER_TAKE_MS = 100;

export type Supplied = { readonly child: ScriptChild } | { readonly refused: string };

/**
 * The server's script children: at most maxScriptChildren alive, pooled ones included, and
 * `pool` of them started ahead (engine compiled, prelude restored) so a run starts at once.
 * A child serves one script and exits; the pool refills in the background.
 */
export class ChildSupply {
  private readonly pooled: ScriptChild[] = [];
  private readonly alive = new Set<ScriptChild>();
  private closed = false;
  private refillTimer: NodeJS.Timeout | undefined;

  constructor(private readonly settings: Settings) {
    this.refill();
  }

  /** Live children, pooled ones included. */
  get size(): number {
    return this.alive.size;
  }

  /** A ready (or starting) child for a script, or why there is none. */
  take(): Supplied {
    if (this.closed) return { refused: 'the server is shutting down' };
    const pooled = this.pooled.shift();
    if (pooled) {
      this.refillAfter(REFILL_AFTER_TAKE_MS);
      return { child: pooled };
    }
    if (this.alive.size >= this.settings.maxScriptChildren) {
      return {
        refused:
          `the server already runs ${this.alive.size} script processes, its maxScriptChildren; ` +
          'wait for a script to end, stop one, or raise --max-script-children',
      };
    }
    return { child: this.spawn(false) };
  }

  /** Kills the pooled children and waits until every child the supply started has exited. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.refillTimer);
    for (const child of this.pooled.splice(0)) child.kill();
    await Promise.all([...this.alive].map((child) => child.gone));
  }

  private spawn(warm: boolean): ScriptChild {
    const child = new ScriptChild({
      memoryMaxBytes: this.settings.memoryMaxBytes,
      notifyMax: this.settings.notifyMax,
      showMaxBytes: this.settings.showMaxBytes,
      warm,
    });
    this.alive.add(child);
    void child.gone.then(() => {
      this.alive.delete(child);
      const index = this.pooled.indexOf(child);
      if (index !== -1) this.pooled.splice(index, 1);
      this.refill();
    });
    return child;
  }

  /** Starts children until the pool is full, within the server's cap. */
  private refill(): void {
    if (this.closed || this.refillTimer) return;
    while (this.pooled.length < this.settings.pool && this.alive.size < this.settings.maxScriptChildren) {
      const child = this.spawn(true);
      this.pooled.push(child);
      // A pooled child that could not start is gone (its exit removes it): try again later, not in a loop.
      child.ready.catch(() => this.refillAfter(REFILL_AFTER_FAILURE_MS));
    }
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
