import type { QuickJS } from 'quickjs-wasi';

/**
 * The WebAssembly memory a VM runs in, all of the script's engine state. quickjs-wasi keeps its
 * instance's exports on the VM without typing them (its `exports`, in the exact version package.json
 * pins): read here only, and checked, so an upgrade that moves them fails loudly (every reset does
 * this; test/script-host/reuse-residue.test.ts scans the process for what a script held).
 */
export function linearMemoryOf(vm: QuickJS): WebAssembly.Memory {
  const memory = (vm as unknown as { exports?: { memory?: unknown } }).exports?.memory;
  if (!(memory instanceof WebAssembly.Memory)) {
    throw new Error("quickjs-wasi no longer keeps its instance's memory where engine/linear-memory.ts reads it");
  }
  return memory;
}

/** Overwrites `memory` with zeros: nothing of what it held is left in the process, whenever V8 frees it. */
export function wipe(memory: WebAssembly.Memory): void {
  new Uint8Array(memory.buffer).fill(0);
}
