import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

/**
 * V8's wasm tiers, chosen by measurement (bench/probe-tiering.ts; table in bench/ANALYSIS.md).
 * A pooled child compiles QuickJS with TurboFan only: its start costs ~350 ms more CPU, paid
 * before a run takes it (and only while no script runs, see ChildSupply), and a CPU-bound script
 * then runs ~1.5 × faster than on Liftoff from its first instruction. Dynamic tiering gets there
 * only after a TurboFan compile of its own in the middle of the script (3 × the CPU of the first
 * sieve) and keeps both tiers' code (+15 MiB idle).
 */
export const POOLED_ENGINE_FLAGS = '--no-liftoff';

/** A child started for a waiting run (the pool empty or off): Liftoff only, the fastest start. */
export const COLD_ENGINE_FLAGS = '--liftoff-only';

/**
 * Starts compiling the engine's WebAssembly with these V8 flags; a child calls this first, so the
 * compile overlaps its imports. V8 ignores a flag it doesn't know.
 */
export function compileEngine(flags: string = COLD_ENGINE_FLAGS): Promise<WebAssembly.Module> {
  setFlagsFromString(flags);
  const bytes = readFileSync(new URL(import.meta.resolve('quickjs-wasi/quickjs.wasm')));
  return WebAssembly.compile(bytes);
}
