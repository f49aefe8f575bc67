import { setFlagsFromString } from 'node:v8';

/**
 * A full garbage collection, once a pooled child's warm-up is done: its throwaway VMs' WebAssembly
 * memories are unreachable but held until V8 collects them, and an idle child may never allocate
 * enough to make it (bench/ANALYSIS.md, "Figures from the code's comments"). V8's gc is exposed by
 * the spawn's --expose-gc (src/script-host/script-process.ts), in the child's own realm, which no
 * script reaches (scripts run in QuickJS); Bun has its own.
 *
 * V8 frees a collected ArrayBuffer's memory in a sweep that it runs on a helper thread after the
 * collection, and the child runs its helper threads at the idle priority (helper-threads.ts): on
 * a busy machine the throwaway memories (10 GiB of address space each) were still mapped hundreds
 * of milliseconds after the child said it was ready. For this collection the sweep runs in the
 * collection itself; later ones sweep in the background as before.
 */
export function collectGarbage(): void {
  const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
  if (bun !== undefined) return bun.gc(true);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('the child was started without --expose-gc');
  setFlagsFromString('--no-concurrent-array-buffer-sweeping');
  try {
    gc();
  } finally {
    setFlagsFromString('--concurrent-array-buffer-sweeping');
  }
}
