/**
 * The engine's WebAssembly with its linear memory imported instead of defined, so that a child can
 * give the memory of a VM it has disposed, wiped, to the next VM it makes (engine/snapshot-restore.ts).
 * With a memory of its own, every instance began on pages the process had never touched, and each
 * page touched is one the kernel must first provide: about 10 µs each on these machines, and a
 * reset's restore and wipe touched some 460 of them, most of its cost (bench/ANALYSIS.md, "Child
 * reuse").
 *
 * quickjs-wasi builds an instance's imports itself; what a caller may add goes in through its WASI
 * overrides (the `wasi` option), in the `wasi_snapshot_preview1` namespace. So the memory is
 * imported from there, under MEMORY_IMPORT (engine/wasm.ts, `withMemory`). Only the memory's
 * definition moves: it stays memory 0, exported as before, with the same limits.
 */

export const MEMORY_IMPORT = 'codemode_memory';
const WASI_NAMESPACE = 'wasi_snapshot_preview1';

const HEADER_BYTES = 8;
const IMPORT_SECTION = 2;
const MEMORY_SECTION = 5;
const MEMORY_KIND = 2;
/** The limits' flags: a maximum follows the minimum; shared and 64-bit memories are not expected here. */
const HAS_MAXIMUM = 1;

/** The memory's limits, in pages of 64 KiB, as the module defined them. */
export interface MemoryLimits {
  readonly initial: number;
  readonly maximum?: number;
}

interface Section {
  readonly id: number;
  /** Where the section starts (its id byte) and ends, and where its content starts. */
  readonly start: number;
  readonly content: number;
  readonly end: number;
}

/** `bytes` (a module that defines one memory) rewritten to import it; throws, naming what differs, for any other module. */
export function importMemory(bytes: Uint8Array): { readonly bytes: Uint8Array; readonly limits: MemoryLimits } {
  const sections = sectionsOf(bytes);
  const imports = sections.find((section) => section.id === IMPORT_SECTION);
  const memories = sections.find((section) => section.id === MEMORY_SECTION);
  if (imports === undefined || memories === undefined) {
    throw new Error("engine/memory-import.ts expects the engine's module to import functions and define its memory; it does not");
  }
  const [count, memoryType] = readU32(bytes, memories.content);
  if (count !== 1) throw new Error(`the engine's module defines ${count} memories; engine/memory-import.ts expects one`);
  const type = bytes.subarray(memoryType, memories.end);
  const limits = limitsOf(type);
  const [importCount, firstImport] = readU32(bytes, imports.content);
  const importContent = concat([
    encodeU32(importCount + 1),
    bytes.subarray(firstImport, imports.end),
    encodeName(WASI_NAMESPACE),
    encodeName(MEMORY_IMPORT),
    Uint8Array.of(MEMORY_KIND),
    type,
  ]);
  const parts: Uint8Array[] = [bytes.subarray(0, HEADER_BYTES)];
  for (const section of sections) {
    if (section.id === MEMORY_SECTION) continue;
    if (section.id === IMPORT_SECTION) parts.push(Uint8Array.of(IMPORT_SECTION), encodeU32(importContent.length), importContent);
    else parts.push(bytes.subarray(section.start, section.end));
  }
  return { bytes: concat(parts), limits };
}

function sectionsOf(bytes: Uint8Array): Section[] {
  const sections: Section[] = [];
  for (let at = HEADER_BYTES; at < bytes.length;) {
    const [size, content] = readU32(bytes, at + 1);
    sections.push({ id: bytes[at]!, start: at, content, end: content + size });
    at = content + size;
  }
  return sections;
}

function limitsOf(type: Uint8Array): MemoryLimits {
  const flags = type[0]!;
  if ((flags & ~HAS_MAXIMUM) !== 0) {
    throw new Error(`the engine's memory has limit flags ${flags}; engine/memory-import.ts expects a plain 32-bit memory`);
  }
  const [initial, next] = readU32(type, 1);
  return (flags & HAS_MAXIMUM) === 0 ? { initial } : { initial, maximum: readU32(type, next)[0] };
}

/** An unsigned LEB128 number at `at`, and where what follows it starts. */
function readU32(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = bytes[at++];
    if (byte === undefined) throw new Error("the engine's module ends inside a number");
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, at];
  }
}

function encodeU32(value: number): Uint8Array {
  const out: number[] = [];
  do {
    const low = value % 0x80;
    value = Math.floor(value / 0x80);
    out.push(value > 0 ? low | 0x80 : low);
  } while (value > 0);
  return Uint8Array.from(out);
}

function encodeName(name: string): Uint8Array {
  const utf8 = new TextEncoder().encode(name);
  return concat([encodeU32(utf8.length), utf8]);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
