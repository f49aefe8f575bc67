import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MEMORY_IMPORT, exportsNamedIn, exportsOf, rewriteModule } from '../../engine/module-rewrite.js';

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

/** A module with three functions of its own, exported as "used", "unused" and "also", and its memory as "mem". */
function moduleWithFunctions(): Uint8Array {
  const body = [2, 0, 0x0b]; // no locals, end
  return Uint8Array.from([
    ...HEADER,
    ...TYPES,
    ...IMPORTS,
    ...section(3, [3, 0, 0, 0]),
    ...section(5, [1, 0x00, 1]),
    ...section(7, [4, ...name('used'), 0x00, 1, ...name('unused'), 0x00, 2, ...name('also'), 0x00, 3, ...name('mem'), 0x02, 0]),
    ...section(10, [3, ...body, ...body, ...body]),
  ]);
}

describe('rewriteModule', () => {
  it('turns the memory the module defines into one it imports, with the same limits, still exported', async () => {
    const { bytes, limits } = rewriteModule(moduleWith([1, 0x01, 2, 5]));
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
    expect(rewriteModule(moduleWith([1, 0x00, 3])).limits).toEqual({ initial: 3 });
  });

  it("rewrites quickjs-wasi's module: the same exports, and its memory imported", async () => {
    const published = await WebAssembly.compile(ENGINE);
    const module = await WebAssembly.compile(rewriteModule(ENGINE).bytes);
    expect(WebAssembly.Module.exports(module)).toEqual(WebAssembly.Module.exports(published));
    expect(WebAssembly.Module.imports(module)).toEqual([
      ...WebAssembly.Module.imports(published),
      { module: 'wasi_snapshot_preview1', name: MEMORY_IMPORT, kind: 'memory' },
    ]);
  });

  it('given the functions to keep, exports only those, and what is not a function as before', async () => {
    const { bytes } = rewriteModule(moduleWithFunctions(), new Set(['used', 'also']));
    const module = await WebAssembly.compile(bytes);
    expect(WebAssembly.Module.exports(module)).toEqual([
      { name: 'used', kind: 'function' },
      { name: 'also', kind: 'function' },
      { name: 'mem', kind: 'memory' },
    ]);
    // Without a list, every export stays.
    expect(exportsOf(rewriteModule(moduleWithFunctions()).bytes).map(({ name }) => name)).toEqual([
      'used',
      'unused',
      'also',
      'mem',
    ]);
  });

  it.each([
    ['no memory', undefined, /import functions and define its memory/],
    ['two memories', [2, 0x00, 1, 0x00, 1], /defines 2 memories; engine\/module-rewrite.ts expects one/],
    ['a shared memory', [1, 0x03, 1, 2], /limit flags 3; engine\/module-rewrite.ts expects a plain 32-bit memory/],
  ])('refuses a module with %s, saying what it expected', (_case, memories, message) => {
    expect(() => rewriteModule(moduleWith(memories))).toThrow(message);
  });
});

describe('exportsNamedIn', () => {
  it('lists the functions whose names occur as identifiers in the sources, not inside longer names', () => {
    const sources = ['const { used } = instance.exports; used();', 'call(exports.alsoNot); // unusedly'];
    expect(exportsNamedIn(moduleWithFunctions(), sources)).toEqual(['used']);
  });

  it("finds, in quickjs-wasi's own code, the functions its restore calls", () => {
    const library = readFileSync(new URL(import.meta.resolve('quickjs-wasi')), 'utf8');
    const named = exportsNamedIn(ENGINE, [library]);
    expect(named).toEqual(expect.arrayContaining(['qjs_set_runtime_and_context', 'malloc', 'free']));
    expect(named.length).toBeLessThan(exportsOf(ENGINE).length / 2);
  });
});
