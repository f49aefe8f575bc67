import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

/**
 * Chosen by measurement (bench/probe-tiering.ts; bench/ANALYSIS.md has the table). Each function
 * is compiled by Liftoff when first called, so nothing waits on the optimising compiler, and at
 * once queued for TurboFan in the background (`--no-wasm-dynamic-tiering`: no budget counting in
 * the Liftoff code, no tier-up in the middle of a script), on one helper thread at a time, which
 * the child puts at the idle priority (engine/helper-threads.ts). A pooled child is optimised
 * before its script comes: the sieve runs ~1.5 × faster than with Liftoff only, for about
 * 200-260 ms of idle-priority CPU per child. The compile's zones stay in malloc's arenas (about
 * 8 MiB of an idle child); MALLOC_MMAP_THRESHOLD_=32768 gave them back but made every zone an mmap,
 * which cost a Promise.all ~25 % more CPU per call in the child (bench/ANALYSIS.md), so it is not set.
 */
export const ENGINE_FLAGS = '--no-wasm-dynamic-tiering --wasm-num-compilation-tasks=1';

/**
 * Starts compiling the engine's WebAssembly with these V8 flags; a child calls this first, so the
 * compile overlaps its imports. V8 ignores a flag it doesn't know.
 */
export function compileEngine(flags: string = ENGINE_FLAGS): Promise<WebAssembly.Module> {
  setFlagsFromString(flags);
  const bytes = readFileSync(new URL(import.meta.resolve('quickjs-wasi/quickjs.wasm')));
  return WebAssembly.compile(bytes);
}
