import { readFileSync } from 'node:fs';
import { QuickJS } from 'quickjs-wasi';
import { describe, expect, it } from 'vitest';
import { copyRanges, SnapshotRestore } from '../../engine/snapshot-restore.js';

const WASM = readFileSync(new URL(import.meta.resolve('quickjs-wasi/quickjs.wasm')));
/** The build's prelude snapshot (npm test builds first). */
const PRELUDE = readFileSync(new URL('../../dist/prelude.snapshot', import.meta.url));

const memoryOf = (vm: QuickJS): Uint8Array =>
  new Uint8Array((vm as unknown as { exports: { memory: WebAssembly.Memory } }).exports.memory.buffer);
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
    "gives %s's VM the same memory, byte for byte, as QuickJS.restore, at its first restore and later ones",
    async (_name, make) => {
      const bytes = await make();
      const module = await WebAssembly.compile(WASM);
      const restore = new SnapshotRestore(module, bytes);
      for (let round = 0; round < 3; round++) {
        const ours = await restore.restore({ memoryLimit: 64 * 2 ** 20 });
        const theirs = await QuickJS.restore(QuickJS.deserializeSnapshot(bytes), { wasm: module, memoryLimit: 64 * 2 ** 20 });
        expect(memoryOf(ours).byteLength).toBe(memoryOf(theirs).byteLength);
        expect(Buffer.compare(memoryOf(ours), memoryOf(theirs))).toBe(0);
        expect(stackPointerOf(ours)).toBe(stackPointerOf(theirs));
        ours.dispose();
        theirs.dispose();
      }
    },
  );

  it('gives a VM that runs, with the limits it was given', async () => {
    const vm = await QuickJS.create({ wasm: WASM });
    vm.evalCode('globalThis.greeting = "restored"').dispose();
    const bytes = QuickJS.serializeSnapshot(vm.snapshot());
    vm.dispose();
    const restore = new SnapshotRestore(await WebAssembly.compile(WASM), bytes);
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
