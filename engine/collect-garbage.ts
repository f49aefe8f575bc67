/**
 * A full garbage collection, once a pooled child's warm-up is done: its throwaway VMs'
 * WebAssembly memories are unreachable but held until V8 collects them, and an idle child may
 * never allocate enough to make it: 5 MiB of an idle pooled child (bench/ANALYSIS.md). V8's gc is
 * exposed by the spawn's --expose-gc (src/isolate/script-process.ts), in the child's own realm,
 * which no script reaches (scripts run in QuickJS); Bun has its own.
 */
export function collectGarbage(): void {
  const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
  if (bun !== undefined) return bun.gc(true);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('the child was started without --expose-gc');
  gc();
}
