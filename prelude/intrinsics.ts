/**
 * The built-ins the prelude uses, taken when the prelude is installed (at build time, before any
 * script exists) and never looked up again. A script may replace any global, prototype method,
 * getter or iterator it likes; that changes its own results, never the prelude's, because the
 * prelude calls only what this file captured, with explicit receivers.
 *
 * This is the one prelude file that may name a global. The rest of the prelude is written in a
 * narrower language, checked by test/prelude/dialect.test.ts: no global names, no method looked
 * up on a built-in prototype, no `for...of`, spread, array destructuring, `instanceof`,
 * `async`/`await` or generators (each reaches a replaceable iterator, method or getter), and its
 * own objects inherit from nothing a script can reach (`blank()`, `list()`, `NullProto`).
 */

const FunctionCall = Function.prototype.call;
const FunctionBind = Function.prototype.bind;

/**
 * `uncurry(Array.prototype.push)(list, x)` is `list.push(x)` with the original push, whatever the
 * script did since: a bound function keeps its target and receiver for good.
 */
function uncurry<A extends unknown[], R>(method: (...args: A) => R): (self: unknown, ...args: A) => R {
  return (FunctionBind as (this: unknown, thisArg: unknown) => unknown).call(FunctionCall, method) as (
    self: unknown,
    ...args: A
  ) => R;
}

// ---- objects ----
export const ObjectCreate = Object.create;
export const ObjectDefineProperty = Object.defineProperty;
export const ObjectFreeze = Object.freeze;
export const ObjectKeys = Object.keys;
export const ObjectHasOwn = Object.hasOwn;
export const ObjectSetPrototypeOf = Object.setPrototypeOf;
export const ObjectGetPrototypeOf = Object.getPrototypeOf;
export const globalObject = globalThis as unknown as Record<string, unknown>;
export const ReflectApply = Reflect.apply;
export const ReflectConstruct = Reflect.construct;
export const ProxyConstructor = Proxy;

// ---- errors ----
export const ErrorConstructor = Error;
export const TypeErrorConstructor = TypeError;
export const RangeErrorConstructor = RangeError;
export const SyntaxErrorConstructor = SyntaxError;
/** A brand check: true only for real error objects, and it runs no script code. */
export const ErrorIsError = (Error as unknown as { isError(value: unknown): boolean }).isError;

// ---- JSON, strings, numbers ----
export const JSONStringify = JSON.stringify;
export const JSONParse = JSON.parse;
export const StringConstructor = String;
export const StringSlice = uncurry(String.prototype.slice);
export const StringIndexOf = uncurry(String.prototype.indexOf);
export const StringCharCodeAt = uncurry(String.prototype.charCodeAt);
export const StringStartsWith = uncurry(String.prototype.startsWith);
export const SymbolToString = uncurry(Symbol.prototype.toString);
export const NumberParseInt = Number.parseInt;
export const MathImul = Math.imul;
export const MathObject = Math;
export const DateGetTime = uncurry(Date.prototype.getTime);
export const DateToISOString = uncurry(Date.prototype.toISOString);

// ---- arrays, maps, sets, promises ----
export const ArrayIsArray = Array.isArray;
export const ArrayPush = uncurry(Array.prototype.push) as (list: unknown, item: unknown) => number;
export const MapConstructor = Map;
export const MapGet = uncurry(Map.prototype.get) as (map: unknown, key: unknown) => unknown;
export const MapSet = uncurry(Map.prototype.set) as (map: unknown, key: unknown, value: unknown) => unknown;
export const MapDelete = uncurry(Map.prototype.delete) as (map: unknown, key: unknown) => boolean;
export const MapSize = uncurry(Object.getOwnPropertyDescriptor(Map.prototype, 'size')!.get!) as (map: unknown) => number;
export const MapEntries = uncurry(Map.prototype.entries) as (map: unknown) => Iterator<[unknown, unknown]>;
export const SetConstructor = Set;
export const SetHas = uncurry(Set.prototype.has) as (set: unknown, value: unknown) => boolean;
export const SetAdd = uncurry(Set.prototype.add) as (set: unknown, value: unknown) => unknown;
export const SetDelete = uncurry(Set.prototype.delete) as (set: unknown, value: unknown) => boolean;
export const SetValues = uncurry(Set.prototype.values) as (set: unknown) => Iterator<unknown>;
/** The iterators of Map and Set entries share %MapIteratorPrototype%.next and %SetIteratorPrototype%.next. */
export const MapIteratorNext = uncurry((Object.getPrototypeOf(new Map().entries()) as Iterator<unknown>).next) as (
  iterator: unknown,
) => IteratorResult<[unknown, unknown]>;
export const SetIteratorNext = uncurry((Object.getPrototypeOf(new Set().values()) as Iterator<unknown>).next) as (
  iterator: unknown,
) => IteratorResult<unknown>;
export const PromiseConstructor = Promise;
export const PromiseThen = uncurry(Promise.prototype.then) as (
  promise: unknown,
  onFulfilled: ((value: unknown) => unknown) | undefined,
  onRejected?: (reason: unknown) => unknown,
) => Promise<unknown>;
/** The constructor of async functions, which compiles a skill's body (prelude/skills.ts): reachable from no global a script could replace. */
export const AsyncFunctionConstructor = (Object.getPrototypeOf(async function () {}) as { constructor: unknown })
  .constructor as new (...parameterThenBody: string[]) => (...args: unknown[]) => Promise<unknown>;
export const Uint32ArrayConstructor = Uint32Array;

// ---- bytes and text, for fetch (prelude/fetch.ts) ----
export const SymbolIterator = Symbol.iterator;
export const ArraySort = uncurry(Array.prototype.sort) as <T>(list: T[], compare: (a: T, b: T) => number) => T[];
export const ArrayValues = uncurry(Array.prototype.values) as <T>(list: T[]) => IterableIterator<T>;
export const ArrayJoin = uncurry(Array.prototype.join) as (list: unknown, separator: string) => string;
export const StringToLowerCase = uncurry(String.prototype.toLowerCase);
export const StringToUpperCase = uncurry(String.prototype.toUpperCase);
export const StringToWellFormed = uncurry((String.prototype as unknown as { toWellFormed(): string }).toWellFormed);
export const StringFromCharCode = String.fromCharCode;
export const Uint8ArrayConstructor = Uint8Array;
const fromBase64 = (Uint8Array as unknown as { fromBase64(text: string): Uint8Array }).fromBase64;
/** Bytes from base64 (QuickJS-ng has the proposal's Uint8Array.fromBase64), native. */
export const Uint8ArrayFromBase64 = (text: string): Uint8Array => ReflectApply(fromBase64, Uint8Array, [text]);
export const Uint8ArrayToBase64 = uncurry((Uint8Array.prototype as unknown as { toBase64(): string }).toBase64);
const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;
function getterOf(prototype: object, key: PropertyKey): (self: unknown) => unknown {
  return uncurry(Object.getOwnPropertyDescriptor(prototype, key)!.get!);
}
/** A typed array's kind (`Uint8Array`, …), undefined for anything else: a brand check that runs no script code. */
export const TypedArrayKind = getterOf(TypedArrayPrototype, Symbol.toStringTag) as (value: unknown) => string | undefined;
export const TypedArrayBuffer = getterOf(TypedArrayPrototype, 'buffer') as (view: unknown) => ArrayBuffer;
export const TypedArrayByteOffset = getterOf(TypedArrayPrototype, 'byteOffset') as (view: unknown) => number;
export const TypedArrayByteLength = getterOf(TypedArrayPrototype, 'byteLength') as (view: unknown) => number;
export const DataViewBuffer = getterOf(DataView.prototype, 'buffer') as (view: unknown) => ArrayBuffer;
export const DataViewByteOffset = getterOf(DataView.prototype, 'byteOffset') as (view: unknown) => number;
export const DataViewByteLength = getterOf(DataView.prototype, 'byteLength') as (view: unknown) => number;
/** Throws for anything but an ArrayBuffer: the brand check of one. */
export const ArrayBufferByteLength = getterOf(ArrayBuffer.prototype, 'byteLength') as (buffer: unknown) => number;
export const ArrayBufferIsView = ArrayBuffer.isView;
/** Text as the UTF-8 of its bytes, one byte a character (encodeURIComponent and unescape are native): for btoa. */
const encodeURIComponentNative = encodeURIComponent;
const unescapeNative = (globalThis as unknown as { unescape(text: string): string }).unescape;
const btoaNative = (globalThis as unknown as { btoa(text: string): string }).btoa;
/** Text as UTF-8 bytes, natively (lone surrogates become U+FFFD first, as TextEncoder does). */
export function encodeUtf8(text: string): Uint8Array {
  return Uint8ArrayFromBase64(btoaNative(unescapeNative(encodeURIComponentNative(StringToWellFormed(text)))));
}

// ---- the prelude's own objects, which inherit nothing a script can reach ----

/** An object with no prototype: no getter or setter a script puts on Object.prototype ever sees it. */
export function blank<T extends object>(): T {
  return ObjectCreate(null) as T;
}

/** An array with no prototype: indexing past its end, or writing a new index, reaches no script code. */
export function list<T>(): T[] {
  const items: T[] = [];
  ObjectSetPrototypeOf(items, null);
  return items;
}

/** A Map with no prototype; use MapGet, MapSet and the rest on it. */
export function dictionary<K, V>(): Map<K, V> {
  const map = new MapConstructor<K, V>();
  ObjectSetPrototypeOf(map, null);
  return map;
}

/** A Set with no prototype; use SetHas, SetAdd and the rest on it. */
export function collection<T>(): Set<T> {
  const set = new SetConstructor<T>();
  ObjectSetPrototypeOf(set, null);
  return set;
}

/**
 * The base of every class of the prelude's own: its instances' prototype chain ends in null, so
 * `this.field = value` and a read of a missing field reach nothing a script put on Object.prototype.
 */
export const NullProto = function NullProto(): void {} as unknown as new () => object;
NullProto.prototype = ObjectCreate(null) as object;

/** Defines a writable, configurable, non-enumerable data property, as built-in globals are; the descriptor inherits nothing. */
export function defineValue(target: object, name: string, value: unknown): void {
  const descriptor = blank<PropertyDescriptor>();
  descriptor.value = value;
  descriptor.writable = true;
  descriptor.configurable = true;
  descriptor.enumerable = false;
  ObjectDefineProperty(target, name, descriptor);
}

/** A new error of a built-in (or the prelude's own error class, given as `newTarget`), built without calling anything a script could have replaced. */
export function newError(
  constructor: new (message: string) => Error,
  message: string,
  newTarget?: new (message: string) => Error,
): Error {
  return ReflectConstruct(constructor, [message], newTarget ?? constructor);
}

/**
 * The script's values as text: a string as it is; anything else through String(), which may run
 * the script's own toString; what can't become a string says so instead of throwing.
 */
export function stringOf(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return StringConstructor(value);
  } catch {
    return typeof value === 'object' && value !== null ? "[an object that can't become a string]" : `[a ${typeof value}]`;
  }
}
