import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

/**
 * Chosen by measurement (bench/probe-tiering.ts; bench/ANALYSIS.md has the table). Each function
 * is compiled by Liftoff when first called, so nothing waits on the optimising compiler, and at
 * once queued for TurboFan in the background (`--no-wasm-dynamic-tiering`: no budget counting in
 * the Liftoff code, no tier-up in the middle of a script), on one helper thread at a time, which
 * the child puts at the idle priority (engine/helper-threads.ts). A pooled child is optimised
 * before its script comes, on idle-priority CPU. The compile's zones stay in malloc's arenas;
 * MALLOC_MMAP_THRESHOLD_ gave them back but made every zone an mmap, which cost more CPU per call
 * in the child than the memory was worth (bench/ANALYSIS.md has the figures), so it is not set.
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
