import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

/**
 * Liftoff only, chosen by measurement (bench/probe-tiering.ts; bench/ANALYSIS.md has the table).
 * TurboFan only (`--no-liftoff`) runs the sieve ~1.5 × faster in CPU time, but compiles each
 * function with TurboFan on its first call: a pooled child's start cost ~400 ms of CPU against
 * 45 ms, and a run's first call, through functions the warm-up had not touched, took seconds on a
 * loaded machine. Dynamic tiering pays its TurboFan compile in the middle of the script (3 × the
 * CPU of the first sieve) and keeps both tiers' code (+15 MiB idle).
 */
export const ENGINE_FLAGS = '--liftoff-only';

/**
 * Starts compiling the engine's WebAssembly with these V8 flags; a child calls this first, so the
 * compile overlaps its imports. V8 ignores a flag it doesn't know.
 */
export function compileEngine(flags: string = ENGINE_FLAGS): Promise<WebAssembly.Module> {
  setFlagsFromString(flags);
  const bytes = readFileSync(new URL(import.meta.resolve('quickjs-wasi/quickjs.wasm')));
  return WebAssembly.compile(bytes);
}
