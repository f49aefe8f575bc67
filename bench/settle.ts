/**
 * Waiting for a server's pool to be idle before a figure is taken. A pooled child says ready
 * before its engine's optimised code is compiled (about 0.2 s of CPU on helper threads at nice 19,
 * engine/wasm.ts), and the pool refills after every run: a figure taken meanwhile measures that
 * work with it. A fixed wait was enough on a quiet machine and not on a loaded one, where the
 * idle child's RSS then included the compile's memory (80 against 60-66 MiB in one run).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { ENGINE_MAIN } from '../src/script-host/engine-path.js';
import { descendantsRunning, sleep } from './measure.js';

/** The window over which the children must be the same ones, each nearly idle. */
const SETTLE_WINDOW_MS = 500;
/** CPU a child may use in a window and still count as idle (a timer or an idle-time GC). */
const SETTLED_CPU_MS = 2;
/** Past this the bench stops, saying what it saw, rather than measure an unsettled pool. */
const SETTLE_TIMEOUT_MS = 60_000;

/** A process's CPU time so far, all threads, in ms (schedstat); null once it is gone. */
function cpuMsOf(pid: number): number | null {
  try {
    let nanos = 0;
    for (const thread of readdirSync(`/proc/${pid}/task`)) {
      nanos += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]);
    }
    return nanos / 1e6;
  } catch {
    return null;
  }
}

function sample(serverPid: number): Map<number, number | null> {
  return new Map(descendantsRunning(serverPid, ENGINE_MAIN).map((pid) => [pid, cpuMsOf(pid)]));
}

/**
 * Resolves once the server has at least `atLeast` script children, the same ones over a whole
 * window, each using under SETTLED_CPU_MS of CPU in it; throws after SETTLE_TIMEOUT_MS.
 */
export async function poolSettled(serverPid: number, atLeast: number): Promise<void> {
  const started = Date.now();
  let before = sample(serverPid);
  for (;;) {
    await sleep(SETTLE_WINDOW_MS);
    const after = sample(serverPid);
    const used = [...after].map(([pid, cpu]) => {
      const earlier = before.get(pid);
      return cpu === null || earlier === undefined || earlier === null ? Infinity : cpu - earlier;
    });
    const busiest = Math.max(0, ...used);
    if (after.size >= atLeast && after.size === before.size && busiest < SETTLED_CPU_MS) return;
    if (Date.now() - started > SETTLE_TIMEOUT_MS) {
      throw new Error(
        `the server's pool did not settle within ${SETTLE_TIMEOUT_MS / 1000} s: ${after.size} script children ` +
          `(at least ${atLeast} expected), the busiest used ${busiest === Infinity ? 'an unknown amount of' : `${busiest.toFixed(1)} ms of`} ` +
          `CPU in the last ${SETTLE_WINDOW_MS} ms (idle is under ${SETTLED_CPU_MS} ms); is the machine busy with something else?`,
      );
    }
    before = after;
  }
}
