import { QuickJS, type QuickJSOptions, type Snapshot } from 'quickjs-wasi';
import { wipe } from './linear-memory.js';
import { newEngineMemory, withMemory } from './wasm.js';

/**
 * The prelude's snapshot restored into a fresh instance of the engine, in the memory of the last
 * VM this restore made once that VM is disposed and its memory wiped (`recycle`), and writing only
 * the memory that differs from what a fresh instance already holds.
 *
 * Every page of a new memory that is touched is one the kernel must first give the process:
 * quickjs-wasi's QuickJS.restore copies the whole snapshot into a new memory, and the wipe of that
 * memory at the reset touched the pages the copy had not. In the same memory, wiped, those pages
 * are the process's already, and a reset costs a fraction of the CPU (bench/ANALYSIS.md, "Figures
 * from the code's comments"). A wiped memory is zeros, as a new one is; a memory the last script
 * grew past the snapshot's size is wiped and dropped instead, so each VM starts at the size a new
 * memory would. Most of the snapshot's blocks are zeros where a fresh instance's memory is zeros
 * too: those are not written.
 *
 * This is QuickJS.restore of the version package.json pins exactly, step for step but for the
 * memory and the copy. It reaches the library's private constructor and statics, checked here so
 * an upgrade that moves them fails loudly; test/engine/snapshot-restore.test.ts compares its memory
 * with QuickJS.restore's byte for byte, in a new memory and a recycled one. A fresh instance's
 * memory is zeros and the module's data segments, the same in every instance (the module has no
 * start function; that test checks it too): read once, from the first instance, before anything is
 * written into it.
 */

const BLOCK = 4096;
const WASM_PAGE = 65536;

/** What this file uses of quickjs-wasi beyond its typed API (3.7.0: `private` in its types, plain in its code). */
interface QuickJSInternals {
  new (module: WebAssembly.Module): QuickJS;
  instantiate(module: WebAssembly.Module, vm: QuickJS, wasi: QuickJSOptions['wasi']): Promise<{ instance: WebAssembly.Instance }>;
  applyLimits(vm: QuickJS, options: Omit<QuickJSOptions, 'wasm'>): void;
}

interface VmInternals {
  setInstance(instance: WebAssembly.Instance): void;
  readonly exports: {
    readonly memory: WebAssembly.Memory;
    readonly __stack_pointer: WebAssembly.Global;
    qjs_set_runtime_and_context(runtime: number, context: number): void;
  };
}

function internals(): QuickJSInternals {
  const library = QuickJS as unknown as Partial<QuickJSInternals>;
  if (typeof library.instantiate !== 'function' || typeof library.applyLimits !== 'function') {
    throw new Error('quickjs-wasi no longer has the statics engine/snapshot-restore.ts restores with');
  }
  return QuickJS as unknown as QuickJSInternals;
}

/** Byte ranges [start, end) of the snapshot to write into a fresh instance. */
type CopyRanges = ReadonlyArray<readonly [number, number]>;

export class SnapshotRestore {
  private readonly snapshot: Snapshot;
  private ranges: CopyRanges | undefined;
  /** The size of a restored VM's memory, once one is made: a recycled memory of another size is not kept. */
  private restoredBytes: number | undefined;
  /** A disposed VM's memory, wiped, for the next restore. */
  private wiped: WebAssembly.Memory | undefined;

  constructor(
    readonly module: WebAssembly.Module,
    bytes: Uint8Array,
  ) {
    this.snapshot = QuickJS.deserializeSnapshot(bytes);
    if (this.snapshot.extensions.length > 0) {
      throw new Error('engine/snapshot-restore.ts restores snapshots without extensions; this one has some');
    }
  }

  /**
   * A new VM: a fresh instance of the module (compileEngine's, which imports its memory), in a
   * recycled memory or a new one, its memory the snapshot's, its limits `options`'.
   */
  async restore(options: Omit<QuickJSOptions, 'wasm'>): Promise<QuickJS> {
    const library = internals();
    const vm = new library(this.module);
    const memory = this.wiped ?? newEngineMemory(this.module);
    this.wiped = undefined;
    const { instance } = await library.instantiate(this.module, vm, withMemory(memory, options.wasi));
    const inner = vm as unknown as VmInternals;
    inner.setInstance(instance);
    const { exports } = inner;
    if (exports.memory !== memory || !(exports.__stack_pointer instanceof WebAssembly.Global)) {
      throw new Error("quickjs-wasi no longer keeps its instance's exports where engine/snapshot-restore.ts reads them");
    }
    const { memory: image, runtimePtr, contextPtr, stackPointer } = this.snapshot;
    // The first restore's memory is always a new one: what a fresh instance holds.
    this.ranges ??= copyRanges(image, new Uint8Array(memory.buffer));
    const pages = memory.buffer.byteLength / WASM_PAGE;
    const needed = Math.ceil(image.byteLength / WASM_PAGE);
    if (needed > pages) memory.grow(needed - pages);
    const bytes = new Uint8Array(memory.buffer);
    for (const [start, end] of this.ranges) bytes.set(image.subarray(start, end), start);
    exports.qjs_set_runtime_and_context(runtimePtr, contextPtr);
    exports.__stack_pointer.value = stackPointer;
    library.applyLimits(vm, options);
    this.restoredBytes ??= memory.buffer.byteLength;
    return vm;
  }

  /**
   * The memory of a VM this restore made, now disposed: overwritten with zeros at once, and kept for
   * the next restore if it is still the size a restore leaves (one is kept; another is dropped).
   */
  recycle(memory: WebAssembly.Memory): void {
    wipe(memory);
    if (this.wiped === undefined && memory.buffer.byteLength === this.restoredBytes) this.wiped = memory;
  }
}

/**
 * The blocks of `image` to write into a fresh instance whose memory is `fresh`: those not zero in
 * either (past `fresh`'s end, the grown memory is zeros). Adjacent blocks make one range.
 */
export function copyRanges(image: Uint8Array, fresh: Uint8Array): CopyRanges {
  const ranges: Array<[number, number]> = [];
  for (let start = 0; start < image.byteLength; start += BLOCK) {
    const end = Math.min(start + BLOCK, image.byteLength);
    if (isZero(image, start, end) && (start >= fresh.byteLength || isZero(fresh, start, Math.min(end, fresh.byteLength)))) {
      continue;
    }
    const last = ranges.at(-1);
    if (last !== undefined && last[1] === start) last[1] = end;
    else ranges.push([start, end]);
  }
  return ranges;
}

const ZEROS = new Uint8Array(BLOCK);

function isZero(bytes: Uint8Array, start: number, end: number): boolean {
  return Buffer.compare(bytes.subarray(start, end), ZEROS.subarray(0, end - start)) === 0;
}
