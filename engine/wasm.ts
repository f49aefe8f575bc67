import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

/**
 * Starts compiling the engine's WebAssembly; a child calls this first, so the compile overlaps its
 * imports. Liftoff only: an idle pooled child stays about 15 MiB smaller without optimised tiers,
 * and scripts measured no slower (bench/ANALYSIS.md). V8 ignores a flag it doesn't know.
 */
export function compileEngine(): Promise<WebAssembly.Module> {
  setFlagsFromString('--liftoff-only');
  const bytes = readFileSync(new URL(import.meta.resolve('quickjs-wasi/quickjs.wasm')));
  return WebAssembly.compile(bytes);
}
