import { JSException, JSValueHandle, type QuickJS } from 'quickjs-wasi';

/** 0xED: the lead byte of every encoded surrogate (U+D800-U+DFFF) in WTF-8, and of U+D000-U+D7FF. */
const SURROGATE_LEAD = 0xed;
const utf8 = new TextDecoder();

/**
 * A guest string, read as `handle.toString()` reads it, faster: quickjs-wasi hands out a string
 * as WTF-8 and scans every byte in JavaScript for an encoded lone surrogate before decoding, which
 * is slow in a child's cold JIT (bench/ANALYSIS.md has the figures). Here the scan is
 * `indexOf`, native; bytes with no 0xED are plain UTF-8, decoded natively, and any other string
 * is read by quickjs-wasi's own way. Through its internal exports (qjs_get_string_len, as its
 * `toString` does): quickjs-wasi is pinned, and test/engine/guest-string.test.ts holds this to
 * `toString` for every kind of string. Only for handles known to be strings: no guest code runs.
 */
export function readGuestString(handle: JSValueHandle): string {
  const exports = handle.vm._getExports();
  const lengthAt = exports.wasm_malloc(4);
  if (lengthAt === 0) throw new Error('wasm_malloc failed');
  try {
    const bytesAt = exports.qjs_get_string_len(handle.ptr, lengthAt);
    if (bytesAt === 0) return handle.toString();
    try {
      const length = new DataView(exports.memory.buffer).getUint32(lengthAt, true);
      const bytes = new Uint8Array(exports.memory.buffer, bytesAt, length);
      return bytes.indexOf(SURROGATE_LEAD) === -1 ? utf8.decode(bytes) : handle.toString();
    } finally {
      exports.qjs_free_cstring(bytesAt);
    }
  } finally {
    exports.wasm_free(lengthAt);
  }
}

/**
 * A guest string made from UTF-8 bytes as they came off the pipe: `vm.newString(bytes.toString())`,
 * without decoding the bytes into a host string and encoding them back (quickjs-wasi's newString
 * also scans the string for lone surrogates first; bench/ANALYSIS.md has the figures). For
 * well-formed UTF-8, as the server's frames are (the UTF-8 of a JSON text from `JSON.stringify`,
 * which escapes lone surrogates). test/engine/guest-string.test.ts holds it to `newString` for
 * every kind of text.
 */
export function newGuestStringFromUtf8(vm: QuickJS, bytes: Uint8Array): JSValueHandle {
  const exports = vm._getExports();
  const at = exports.wasm_malloc(bytes.length + 1);
  if (at === 0) throw new Error('wasm_malloc failed');
  try {
    const memory = new Uint8Array(exports.memory.buffer);
    memory.set(bytes, at);
    memory[at + bytes.length] = 0;
    const made = new JSValueHandle(vm, exports.qjs_new_string(at, bytes.length));
    if (exports.qjs_is_exception(made.ptr) === 0) return made;
    // The guest is out of memory: thrown as newString throws it.
    made.dispose();
    throw new JSException(vm.getException());
  } finally {
    exports.wasm_free(at);
  }
}
