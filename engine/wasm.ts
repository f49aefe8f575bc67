import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import type { QuickJSOptions } from 'quickjs-wasi';
import { MEMORY_IMPORT, rewriteModule, type MemoryLimits } from './module-rewrite.js';

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

/** The build's list of the module's functions the engine's code names (engine/build-exports.ts); dist/ is one level up here and in the child's bundle. */
export const ENGINE_EXPORTS = new URL('../engine-exports.json', import.meta.url);

export interface EngineExports {
  /** The version of quickjs-wasi the list was made from. */
  readonly quickjsWasi: string;
  readonly functions: readonly string[];
}

/** The memory limits of each module compileEngineBytes made: its instances' memories are made to them. */
const memoryLimits = new WeakMap<WebAssembly.Module, MemoryLimits>();

/**
 * Starts compiling the engine's WebAssembly with these V8 flags, exporting only the functions the
 * build listed; a child calls this first, so the compile overlaps its imports. V8 ignores a flag
 * it doesn't know.
 */
export function compileEngine(flags: string = ENGINE_FLAGS): Promise<WebAssembly.Module> {
  setFlagsFromString(flags);
  let listed: EngineExports;
  try {
    listed = JSON.parse(readFileSync(ENGINE_EXPORTS, 'utf8')) as EngineExports;
  } catch (error) {
    return Promise.reject(
      new Error(`the build's list of the engine's exports can't be read (${(error as Error).message}); run "npm run build"`),
    );
  }
  return compileEngineBytes(readFileSync(new URL(import.meta.resolve('quickjs-wasi/quickjs.wasm'))), new Set(listed.functions));
}

/**
 * Compiles quickjs-wasi's WebAssembly (`bytes`) rewritten (engine/module-rewrite.ts) to import its
 * memory, each instance then given one by `withMemory`, and, given `keptExports`, to export only
 * those functions.
 */
export async function compileEngineBytes(bytes: Uint8Array, keptExports?: ReadonlySet<string>): Promise<WebAssembly.Module> {
  const rewritten = rewriteModule(bytes, keptExports);
  const module = await WebAssembly.compile(rewritten.bytes);
  memoryLimits.set(module, rewritten.limits);
  return module;
}

/** A new memory for an instance of `module` (compileEngineBytes'): zeros, of the size the module asks. */
export function newEngineMemory(module: WebAssembly.Module): WebAssembly.Memory {
  const limits = memoryLimits.get(module);
  if (limits === undefined) throw new Error('newEngineMemory takes a module compileEngine or compileEngineBytes made');
  return new WebAssembly.Memory(limits);
}

/** quickjs-wasi's `wasi` option giving an instance `memory` to import, beside the caller's own overrides, if any. */
export function withMemory(memory: WebAssembly.Memory, wasi?: QuickJSOptions['wasi']): NonNullable<QuickJSOptions['wasi']> {
  // quickjs-wasi types the overrides as functions; the namespace they go in takes any import.
  return (memoryProxy) => ({ ...wasi?.(memoryProxy), [MEMORY_IMPORT]: memory as never });
}
