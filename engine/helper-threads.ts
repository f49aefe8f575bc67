import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

/** 19: the lowest priority a process may give its own threads; a thread at it gets a core only when no other wants one. */
const IDLE_NICE = 19;

/**
 * Puts every thread of this process but the main one at the idle priority: V8's helper threads,
 * where the optimising compile of the engine's WebAssembly runs (engine/wasm.ts), so a child
 * compiling in the background takes no CPU from a running script, the server, or its upstreams.
 * Threads started later inherit the main thread's priority. Linux only, where a thread has its
 * own priority (a thread id is a pid to setpriority); elsewhere it leaves them as they are.
 * Returns how many threads it lowered.
 */
export function lowerHelperThreads(): number {
  if (process.platform !== 'linux') return 0;
  let lowered = 0;
  for (const entry of readdirSync('/proc/self/task')) {
    const tid = Number(entry);
    if (tid === process.pid) continue;
    try {
      setPriority(tid, IDLE_NICE);
      lowered++;
    } catch (error) {
      // A thread that ended between the listing and the call (ESRCH) is no longer there to lower.
      if ((error as { info?: { code?: string } }).info?.code !== 'ESRCH') throw error;
    }
  }
  return lowered;
}
