import { readFile } from 'node:fs/promises';
import { QuickJS } from 'quickjs-wasi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newGuestStringFromUtf8, readGuestString } from '../../engine/guest-string.js';

let vm: QuickJS;

beforeAll(async () => {
  vm = await QuickJS.create({ wasm: await readFile(new URL(import.meta.resolve('quickjs-wasi/quickjs.wasm'))) });
});

afterAll(() => vm.dispose());

/** Every kind of string a script can make, each as the guest builds it (so no host encoding is involved). */
const GUEST_STRINGS: Record<string, string> = {
  empty: '""',
  ascii: '"plain text"',
  'a megabyte': '"x".repeat(1_000_000)',
  latin1: '"caf\\u00e9 \\u00ff"',
  'two-byte': '"\\u4e2d\\u6587 \\u2026"',
  'paired surrogates (an emoji)': '"\\ud83d\\ude00 smile"',
  'a lone high surrogate': '"a\\ud800b"',
  'a lone low surrogate': '"a\\udc00b"',
  'a lone surrogate at the end': '"end\\udbff"',
  'Hangul (0xED lead bytes that are not surrogates)': '"\\ud55c\\uad6d\\ud7a3"',
  'Hangul beside a lone surrogate': '"\\ud55c\\ud800"',
  'NUL inside': '"a\\u0000b\\u0000"',
  'every code unit below 0x800': 'Array.from({ length: 0x800 }, (_, i) => String.fromCharCode(i)).join("")',
  'every code unit, surrogates included': 'Array.from({ length: 0x10000 }, (_, i) => String.fromCharCode(i)).join("")',
};

describe('a guest string read by the engine', () => {
  for (const [kind, source] of Object.entries(GUEST_STRINGS)) {
    it(`reads as quickjs-wasi's own toString reads it: ${kind}`, () => {
      const handle = vm.evalCode(source);
      try {
        expect(handle.isString).toBe(true);
        const read = readGuestString(handle);
        expect(read).toBe(handle.toString());
        expect(read.length).toBe(vm.evalCode(`(${source}).length`).consume((length) => length.toNumber()));
      } finally {
        handle.dispose();
      }
    });
  }
});

/** Texts as a result's frame brings them: the UTF-8 of what the server's JSON.stringify wrote. */
const HOST_TEXTS: Record<string, string> = {
  empty: '',
  ascii: 'plain text',
  'a megabyte': 'x'.repeat(1_000_000),
  latin1: 'caf\u00e9 \u00ff',
  'two-byte': '\u4e2d\u6587 \u2026',
  'paired surrogates (an emoji)': '\ud83d\ude00 smile',
  Hangul: '\ud55c\uad6d\ud7a3',
  'NUL inside': 'a\u0000b\u0000',
  'a result whose text had a lone surrogate (escaped by JSON.stringify)': JSON.stringify({ text: 'a\ud800b' }),
  'every code point below 0x800': Array.from({ length: 0x800 }, (_, i) => String.fromCharCode(i)).join(''),
};

describe('a guest string made from the UTF-8 bytes of a frame', () => {
  for (const [kind, text] of Object.entries(HOST_TEXTS)) {
    it(`is the string quickjs-wasi's newString makes of the text: ${kind}`, () => {
      const made = newGuestStringFromUtf8(vm, Buffer.from(text, 'utf8'));
      const expected = vm.newString(text);
      try {
        expect(made.isString).toBe(true);
        expect(readGuestString(made)).toBe(text);
        const same = vm.evalCode('(a, b) => a === b');
        expect(vm.callFunction(same, vm.undefined, made, expected).consume((result) => result.toBoolean())).toBe(true);
        same.dispose();
      } finally {
        made.dispose();
        expected.dispose();
      }
    });
  }
});
