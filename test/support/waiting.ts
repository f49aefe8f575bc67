/**
 * Waiting for an event the tests can only poll for (a process's exit, a file's removal, a line in
 * a log) with no time limit of its own: the test's (or hook's) timeout is the only bound, so a
 * loaded machine makes a wait longer, never a test wrong. A wait still open when its test fails
 * (a timeout, say) is printed with what it last saw, then stopped (setup.ts).
 */
import { setTimeout as delay } from 'node:timers/promises';

/** How often a wait checks again: a wait costs a /proc scan or a read each time. */
const POLL_MS = 20;

interface OpenWait {
  readonly what: string;
  /** The last check's answer, for the failure's message. */
  last: string;
  stopped: boolean;
}

const open = new Set<OpenWait>();

/** The value `check` first returns that is neither undefined nor false, checked every POLL_MS. */
export async function until<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  describe: () => string = () => '',
): Promise<T> {
  const wait: OpenWait = { what, last: '', stopped: false };
  open.add(wait);
  try {
    for (;;) {
      const value = await check();
      if (value !== undefined && value !== false) return value;
      wait.last = describe();
      if (wait.stopped) throw new Error(`stopped waiting for ${what}: its test has ended`);
      await delay(POLL_MS);
    }
  } finally {
    open.delete(wait);
  }
}

/** Retries `check` until it passes; a failed check is what the wait says it last saw. */
export async function eventually(check: () => Promise<void> | void): Promise<void> {
  let failure = '';
  await until(
    'a check to pass',
    async () => {
      try {
        await check();
        return true;
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
        return false;
      }
    },
    () => failure,
  );
}

/** After each test: the waits still open (its test failed or timed out) are reported and stopped. */
export function endOpenWaits(failed: boolean): void {
  for (const wait of open) {
    // Stopped already, it ends at its next check.
    if (wait.stopped) continue;
    if (failed) process.stderr.write(`test still waiting for ${wait.what}${wait.last ? `; last saw: ${wait.last}` : ''}\n`);
    wait.stopped = true;
  }
}
