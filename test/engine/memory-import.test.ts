import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MEMORY_IMPORT, importMemory } from '../../engine/memory-import.js';

const ENGINE = readFileSync(new URL(import.meta.resolve('quickjs-wasi/quickjs.wasm')));

const name = (text: string): number[] => [text.length, ...Buffer.from(text)];
const section = (id: number, content: number[]): number[] => [id, content.length, ...content];
const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
/** One function type, () -> (). */
const TYPES = section(1, [1, 0x60, 0, 0]);
/** One imported function, env.f, of that type. */
const IMPORTS = section(2, [1, ...name('env'), ...name('f'), 0x00, 0]);
/** Memory 0 exported as "mem". */
const EXPORTS = section(7, [1, ...name('mem'), 0x02, 0]);

/** A small module: the types, the import, `memories` (the memory section's content, if any), the export. */
function moduleWith(memories: number[] | undefined): Uint8Array {
  return Uint8Array.from([...HEADER, ...TYPES, ...IMPORTS, ...(memories ? section(5, memories) : []), ...EXPORTS]);
}

describe('importMemory', () => {
  it('turns the memory the module defines into one it imports, with the same limits, still exported', async () => {
    const { bytes, limits } = importMemory(moduleWith([1, 0x01, 2, 5]));
    expect(limits).toEqual({ initial: 2, maximum: 5 });
    const module = await WebAssembly.compile(bytes);
    expect(WebAssembly.Module.imports(module)).toEqual([
      { module: 'env', name: 'f', kind: 'function' },
      { module: 'wasi_snapshot_preview1', name: MEMORY_IMPORT, kind: 'memory' },
    ]);
    expect(WebAssembly.Module.exports(module)).toEqual([{ name: 'mem', kind: 'memory' }]);
    const memory = new WebAssembly.Memory(limits);
    const instance = await WebAssembly.instantiate(module, {
      env: { f: () => {} },
      wasi_snapshot_preview1: { [MEMORY_IMPORT]: memory },
    });
    expect(instance.exports.mem).toBe(memory);
    // A memory past the declared maximum is refused: the limits went into the import.
    const tooBig = new WebAssembly.Memory({ initial: 2, maximum: 6 });
    await expect(
      WebAssembly.instantiate(module, { env: { f: () => {} }, wasi_snapshot_preview1: { [MEMORY_IMPORT]: tooBig } }),
    ).rejects.toThrow(WebAssembly.LinkError);
  });

  it('keeps a memory without a maximum without one', () => {
    expect(importMemory(moduleWith([1, 0x00, 3])).limits).toEqual({ initial: 3 });
  });

  it("rewrites quickjs-wasi's module: the same exports, and its memory imported", async () => {
    const published = await WebAssembly.compile(ENGINE);
    const module = await WebAssembly.compile(importMemory(ENGINE).bytes);
    expect(WebAssembly.Module.exports(module)).toEqual(WebAssembly.Module.exports(published));
    expect(WebAssembly.Module.imports(module)).toEqual([
      ...WebAssembly.Module.imports(published),
      { module: 'wasi_snapshot_preview1', name: MEMORY_IMPORT, kind: 'memory' },
    ]);
  });

  it.each([
    ['no memory', undefined, /import functions and define its memory/],
    ['two memories', [2, 0x00, 1, 0x00, 1], /defines 2 memories; engine\/memory-import.ts expects one/],
    ['a shared memory', [1, 0x03, 1, 2], /limit flags 3; engine\/memory-import.ts expects a plain 32-bit memory/],
  ])('refuses a module with %s, saying what it expected', (_case, memories, message) => {
    expect(() => importMemory(moduleWith(memories))).toThrow(message);
  });
});
