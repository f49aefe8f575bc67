/**
 * quickjs-wasi's WebAssembly as a child compiles it (engine/wasm.ts), rewritten in two ways, both
 * for a reset's cost (bench/ANALYSIS.md, "Child reuse"):
 *
 * - Its linear memory is imported instead of defined, so that a child can give the memory of a VM
 *   it has disposed, wiped, to the next VM it makes (engine/snapshot-restore.ts). In a new memory
 *   every page touched is one the kernel must first give the process, and a reset's restore and
 *   wipe touched hundreds of them (bench/ANALYSIS.md, "Figures from the code's comments").
 *   quickjs-wasi builds an instance's imports itself; what a caller may add goes in through its WASI overrides (the
 *   `wasi` option), in the `wasi_snapshot_preview1` namespace, so the memory is imported from
 *   there, under MEMORY_IMPORT. It stays memory 0, exported as before, with the same limits.
 * - Only the exports the engine's code names are kept (the build lists them,
 *   engine/build-exports.ts): V8 makes a function object for every export at each instantiation,
 *   and quickjs-wasi names 114 of the module's 454.
 */

export const MEMORY_IMPORT = 'codemode_memory';
const WASI_NAMESPACE = 'wasi_snapshot_preview1';

const HEADER_BYTES = 8;
const IMPORT_SECTION = 2;
const MEMORY_SECTION = 5;
const EXPORT_SECTION = 7;
const FUNCTION_KIND = 0;
const MEMORY_KIND = 2;
/** The limits' flags: a maximum follows the minimum; shared and 64-bit memories are not expected here. */
const HAS_MAXIMUM = 1;

/** The memory's limits, in pages of 64 KiB, as the module defined them. */
export interface MemoryLimits {
  readonly initial: number;
  readonly maximum?: number;
}

export interface RewrittenModule {
  readonly bytes: Uint8Array;
  readonly limits: MemoryLimits;
}

interface Section {
  readonly id: number;
  /** Where the section starts (its id byte) and ends, and where its content starts. */
  readonly start: number;
  readonly content: number;
  readonly end: number;
}

/**
 * `bytes` (a module that imports functions and defines one memory) rewritten to import its memory
 * and, given `keptExports`, to export only the functions named there (its other exports stay);
 * throws, naming what differs, for any other module.
 */
export function rewriteModule(bytes: Uint8Array, keptExports?: ReadonlySet<string>): RewrittenModule {
  const sections = sectionsOf(bytes);
  const imports = sections.find((section) => section.id === IMPORT_SECTION);
  const memories = sections.find((section) => section.id === MEMORY_SECTION);
  if (imports === undefined || memories === undefined) {
    throw new Error(
      "engine/module-rewrite.ts expects the engine's module to import functions and define its memory; it does not",
    );
  }
  const [count, memoryType] = readU32(bytes, memories.content);
  if (count !== 1) throw new Error(`the engine's module defines ${count} memories; engine/module-rewrite.ts expects one`);
  const type = bytes.subarray(memoryType, memories.end);
  const limits = limitsOf(type);
  const parts: Uint8Array[] = [bytes.subarray(0, HEADER_BYTES)];
  for (const section of sections) {
    if (section.id === MEMORY_SECTION) continue;
    if (section.id === IMPORT_SECTION) parts.push(...sectionBytes(IMPORT_SECTION, withMemoryImport(bytes, section, type)));
    else if (section.id === EXPORT_SECTION && keptExports !== undefined) {
      parts.push(...sectionBytes(EXPORT_SECTION, keptOnly(bytes, section, keptExports)));
    } else parts.push(bytes.subarray(section.start, section.end));
  }
  return { bytes: concat(parts), limits };
}

/** The names the module exports, each with its kind (0 a function, 1 a table, 2 a memory, 3 a global). */
export function exportsOf(bytes: Uint8Array): Array<{ readonly name: string; readonly kind: number }> {
  const section = sectionsOf(bytes).find((candidate) => candidate.id === EXPORT_SECTION);
  return section === undefined ? [] : readExports(bytes, section).map(({ name, kind }) => ({ name, kind }));
}

/**
 * The module's function exports whose names occur as identifiers in `sources` (JavaScript text):
 * those code may call. A name built at run time would be missed; quickjs-wasi builds none for its
 * own module (only for extensions', which the engine doesn't load).
 */
export function exportsNamedIn(bytes: Uint8Array, sources: readonly string[]): string[] {
  const identifiers = new Set(sources.flatMap((source) => source.match(/[A-Za-z_$][\w$]*/g) ?? []));
  return exportsOf(bytes)
    .filter(({ name, kind }) => kind === FUNCTION_KIND && identifiers.has(name))
    .map(({ name }) => name);
}

function withMemoryImport(bytes: Uint8Array, imports: Section, memoryType: Uint8Array): Uint8Array {
  const [count, first] = readU32(bytes, imports.content);
  return concat([
    encodeU32(count + 1),
    bytes.subarray(first, imports.end),
    encodeName(WASI_NAMESPACE),
    encodeName(MEMORY_IMPORT),
    Uint8Array.of(MEMORY_KIND),
    memoryType,
  ]);
}

function keptOnly(bytes: Uint8Array, exports: Section, kept: ReadonlySet<string>): Uint8Array {
  const entries = readExports(bytes, exports).filter(({ name, kind }) => kind !== FUNCTION_KIND || kept.has(name));
  return concat([encodeU32(entries.length), ...entries.map(({ entry }) => entry)]);
}

function readExports(bytes: Uint8Array, exports: Section): Array<{ name: string; kind: number; entry: Uint8Array }> {
  const entries: Array<{ name: string; kind: number; entry: Uint8Array }> = [];
  let [count, at] = readU32(bytes, exports.content);
  const decoder = new TextDecoder();
  for (; count > 0; count--) {
    const start = at;
    const [length, nameStart] = readU32(bytes, at);
    const name = decoder.decode(bytes.subarray(nameStart, nameStart + length));
    const kind = bytes[nameStart + length]!;
    at = readU32(bytes, nameStart + length + 1)[1];
    entries.push({ name, kind, entry: bytes.subarray(start, at) });
  }
  return entries;
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

function sectionBytes(id: number, content: Uint8Array): Uint8Array[] {
  return [Uint8Array.of(id), encodeU32(content.length), content];
}

function limitsOf(type: Uint8Array): MemoryLimits {
  const flags = type[0]!;
  if ((flags & ~HAS_MAXIMUM) !== 0) {
    throw new Error(`the engine's memory has limit flags ${flags}; engine/module-rewrite.ts expects a plain 32-bit memory`);
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
