import { readFileSync } from 'node:fs';

/** Starts compiling the engine's WebAssembly; a child calls this first, so the compile overlaps its imports. */
export function compileEngine(): Promise<WebAssembly.Module> {
  const bytes = readFileSync(new URL(import.meta.resolve('quickjs-wasi/quickjs.wasm')));
  return WebAssembly.compile(bytes);
}
