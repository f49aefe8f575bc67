/**
 * A full garbage collection in the server once it goes idle after work. Under load V8 grows the
 * young generation and fills the old one with garbage; with nothing more allocated once the load
 * ends, no collection comes to give either back, and the server's RSS stayed well above its start
 * after a load (bench/ANALYSIS.md, "Figures from the code's comments").
 * A collection on an idle loop takes the old space's garbage; V8 shrinks the young generation
 * only in a collection that finds the allocation rate low, which the first one after a load may
 * not, so work is followed by IDLE_COLLECTIONS collections, one per idle check.
 *
 * Work: the event loop was busy for IDLE_UTILIZATION or more of a check's interval, or the heap
 * in use grew by IDLE_COLLECT_GROWTH_BYTES since the last collection (a trickle of requests can
 * leave garbage without ever keeping the loop busy). Idle: busy for less. A health check or an
 * idle pool is not work: an idle server is not collected again and again. Fixed; a collection
 * takes tens of milliseconds of an idle loop.
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How often the loop's use is checked. */
export const IDLE_CHECK_MS = 5_000;
/** Busy for less than this share of a check's interval: idle. */
export const IDLE_UTILIZATION = 0.02;
/** The heap grew by this much since the last collection: there was work, and garbage to take. */
export const IDLE_COLLECT_GROWTH_BYTES = 4 * 2 ** 20;
/** Collections after work, at the idle checks that follow it. */
export const IDLE_COLLECTIONS = 2;

/** What the policy reads and does, injected so a test can drive it. */
export interface IdleProbe {
  /** The event loop's busy share since the previous call (0..1). */
  loopUtilization(): number;
  heapUsed(): number;
  collect(): void;
}

/** The checks: collects at the idle ones that follow work. */
export class IdleCollector {
  private heapAfterCollect: number;
  /** Collections still owed to the last work. */
  private owed = 0;

  constructor(
    private readonly probe: IdleProbe,
    private readonly onCollect: (tookMs: number, heapBefore: number, heapAfter: number) => void,
  ) {
    this.heapAfterCollect = probe.heapUsed();
  }

  check(): void {
    const before = this.probe.heapUsed();
    if (this.probe.loopUtilization() >= IDLE_UTILIZATION) {
      this.owed = IDLE_COLLECTIONS;
      return;
    }
    if (before - this.heapAfterCollect >= IDLE_COLLECT_GROWTH_BYTES) this.owed = Math.max(this.owed, 1);
    if (this.owed === 0) return;
    this.owed -= 1;
    const start = performance.now();
    this.probe.collect();
    this.heapAfterCollect = this.probe.heapUsed();
    this.onCollect(performance.now() - start, before, this.heapAfterCollect);
  }
}

/** V8's full collection, without starting the process with --expose-gc. */
function fullCollection(): () => void {
  // Started with --expose-gc (node --expose-gc bin/codemode-mcp.js): the flag is already as it stays.
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed !== undefined) return exposed;
  // The flag exposes `gc` to contexts made while it is set: a new context's is the same isolate's
  // collector. It is unset at once: V8's flags are part of its code cache's version, and the
  // server's compile cache (src/boot/) is written after this and read before it at the next start.
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as () => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/** This process's probe: Node's event-loop utilization and heap, and the full collection. */
export function processProbe(): IdleProbe {
  let last = performance.eventLoopUtilization();
  return {
    loopUtilization: () => {
      const now = performance.eventLoopUtilization();
      const since = performance.eventLoopUtilization(now, last);
      last = now;
      return since.utilization;
    },
    heapUsed: () => process.memoryUsage().heapUsed,
    collect: fullCollection(),
  };
}

/**
 * Checks every IDLE_CHECK_MS for the life of the process (the timer never holds it open). Not
 * under Bun: JavaScriptCore's collector runs on timers of its own once allocation stops, and Bun
 * reports no event-loop utilization (always 0), so idle could not be told from busy.
 */
export function collectWhenIdle(log: (line: string) => void): void {
  if (process.versions.bun !== undefined) return;
  const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
  const collector = new IdleCollector(processProbe(), (tookMs, before, after) =>
    log(`idle: full garbage collection in ${tookMs.toFixed(1)} ms, heap ${mib(before)} -> ${mib(after)} MiB`),
  );
  setInterval(() => collector.check(), IDLE_CHECK_MS).unref();
}
