import { readFileSync } from 'node:fs';
import { QuickJS } from 'quickjs-wasi';
import { describe, expect, it } from 'vitest';
import { linearMemoryOf } from '../../engine/linear-memory.js';
import { copyRanges, SnapshotRestore } from '../../engine/snapshot-restore.js';
import { compileEngineBytes, type EngineExports } from '../../engine/wasm.js';

const WASM = readFileSync(new URL(import.meta.resolve('quickjs-wasi/quickjs.wasm')));
/** The functions of the module a child exports, as the build listed them (npm test builds first). */
const LISTED = new Set(
  (JSON.parse(readFileSync(new URL('../../dist/engine-exports.json', import.meta.url), 'utf8')) as EngineExports).functions,
);
/** The build's prelude snapshot (npm test builds first). */
const PRELUDE = readFileSync(new URL('../../dist/prelude.snapshot', import.meta.url));

const memoryOf = (vm: QuickJS): Uint8Array => new Uint8Array(linearMemoryOf(vm).buffer);
const stackPointerOf = (vm: QuickJS): unknown =>
  (vm as unknown as { exports: { __stack_pointer: WebAssembly.Global } }).exports.__stack_pointer.value;

/** The ids of the module's sections, in order (the WebAssembly binary format: magic, version, then id and size each). */
function sectionIds(bytes: Uint8Array): number[] {
  const ids: number[] = [];
  let at = 8;
  while (at < bytes.length) {
    ids.push(bytes[at]!);
    at += 1;
    let size = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[at++]!;
      size += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) break;
    }
    at += size;
  }
  return ids;
}

describe('SnapshotRestore', () => {
  it.each([
    ['the prelude snapshot', () => PRELUDE],
    [
      'a snapshot of a VM that made strings, objects and a closure',
      async () => {
        const vm = await QuickJS.create({ wasm: WASM });
        vm.evalCode(
          'globalThis.kept = { list: Array.from({ length: 5000 }, (_, i) => "item " + i), next: (() => { let n = 0; return () => ++n; })() }',
        ).dispose();
        const bytes = QuickJS.serializeSnapshot(vm.snapshot());
        vm.dispose();
        return bytes;
      },
    ],
  ])(
    "gives %s's VM the same memory, byte for byte, as QuickJS.restore in a new memory: at its first restore, and in the last VM's memory after it ran",
    async (_name, make) => {
      const bytes = await make();
      const restore = new SnapshotRestore(await compileEngineBytes(WASM), bytes);
      const published = await WebAssembly.compile(WASM);
      const memories = new Set<WebAssembly.Memory>();
      for (let round = 0; round < 3; round++) {
        const ours = await restore.restore({ memoryLimit: 64 * 2 ** 20 });
        const theirs = await QuickJS.restore(QuickJS.deserializeSnapshot(bytes), { wasm: published, memoryLimit: 64 * 2 ** 20 });
        expect(memoryOf(ours).byteLength).toBe(memoryOf(theirs).byteLength);
        expect(Buffer.compare(memoryOf(ours), memoryOf(theirs))).toBe(0);
        expect(stackPointerOf(ours)).toBe(stackPointerOf(theirs));
        // What the last VM wrote must not survive into the next: it allocates, and its garbage stays.
        ours
          .evalCode('globalThis.left = Array.from({ length: 20 }, (_, i) => ({ i, text: "left behind " + i })).length')
          .dispose();
        const memory = linearMemoryOf(ours);
        memories.add(memory);
        ours.dispose();
        restore.recycle(memory);
        theirs.dispose();
      }
      // The check can fail: each round after the first ran in the first round's memory.
      expect(memories.size).toBe(1);
    },
  );

  it('wipes a memory the script grew and leaves it to V8, so the next VM starts at the size a new memory would', async () => {
    const restore = new SnapshotRestore(await compileEngineBytes(WASM), PRELUDE);
    const first = await restore.restore({ memoryLimit: 64 * 2 ** 20 });
    const restoredBytes = memoryOf(first).byteLength;
    first.evalCode('globalThis.big = "grown ".repeat(2 ** 20).length').dispose();
    const grown = linearMemoryOf(first);
    expect(grown.buffer.byteLength).toBeGreaterThan(restoredBytes);
    first.dispose();
    restore.recycle(grown);
    expect(new Uint8Array(grown.buffer).every((byte) => byte === 0)).toBe(true);
    const next = await restore.restore({ memoryLimit: 64 * 2 ** 20 });
    expect(linearMemoryOf(next)).not.toBe(grown);
    expect(memoryOf(next).byteLength).toBe(restoredBytes);
    next.dispose();
  });

  it('gives a VM that runs, with the limits it was given, from the module as a child compiles it (only the exports the build listed)', async () => {
    const vm = await QuickJS.create({ wasm: WASM });
    vm.evalCode('globalThis.greeting = "restored"').dispose();
    const bytes = QuickJS.serializeSnapshot(vm.snapshot());
    vm.dispose();
    const restore = new SnapshotRestore(await compileEngineBytes(WASM, LISTED), bytes);
    const restored = await restore.restore({ memoryLimit: 8 * 2 ** 20 });
    expect(restored.dump(restored.evalCode('greeting + " " + [1, 2, 3].map((n) => n * 2).join()'))).toBe('restored 2,4,6');
    // Over its memory limit, the VM throws rather than grows.
    expect(() => restored.evalCode('"x".repeat(32 * 1024 * 1024)')).toThrow();
    restored.dispose();
  });

  it("relies on a fresh instance's memory being the same in every instance: the module has no start function", () => {
    const START_SECTION = 8;
    const ids = sectionIds(WASM);
    expect(ids).toContain(11); // the data section, read once from a fresh instance
    expect(ids).not.toContain(START_SECTION);
  });
});

describe('copyRanges', () => {
  const block = (fill: number): Uint8Array => new Uint8Array(4096).fill(fill);
  const join = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(parts.flatMap((part) => [...part]));

  it('leaves out the blocks zero in both, and joins adjacent ones', () => {
    const image = join(block(1), block(2), block(0), block(0), block(3), block(0));
    const fresh = join(block(0), block(0), block(0), block(9));
    expect(copyRanges(image, fresh)).toEqual([
      [0, 8192],
      // zero in the image but not in a fresh instance (a data segment): written, as zeros
      [12288, 20480],
    ]);
  });

  it('counts memory past the fresh instance as zeros, and a last block shorter than 4 KiB', () => {
    const image = join(block(0), block(0), new Uint8Array(100).fill(7));
    expect(copyRanges(image, block(0))).toEqual([[8192, 8292]]);
    expect(copyRanges(new Uint8Array(8192), new Uint8Array(0))).toEqual([]);
  });
});
