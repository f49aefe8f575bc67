import type { Calls } from './calls.js';
import { ToolRefused } from './errors.js';
import {
  ArrayBufferByteLength,
  ArrayBufferIsView,
  ArrayIsArray,
  ArrayJoin,
  ArraySort,
  ArrayValues,
  DataViewBuffer,
  DataViewByteLength,
  DataViewByteOffset,
  ErrorIsError,
  JSONParse,
  JSONStringify,
  ObjectFreeze,
  ObjectGetPrototypeOf,
  ObjectKeys,
  ObjectSetPrototypeOf,
  PromiseConstructor,
  PromiseThen,
  RangeErrorConstructor,
  ReflectApply,
  StringCharCodeAt,
  StringFromCharCode,
  StringIndexOf,
  StringSlice,
  StringToLowerCase,
  StringToUpperCase,
  SymbolIterator,
  TypeErrorConstructor,
  TypedArrayBuffer,
  TypedArrayByteLength,
  TypedArrayByteOffset,
  TypedArrayKind,
  Uint8ArrayConstructor,
  Uint8ArrayFromBase64,
  Uint8ArrayToBase64,
  blank,
  defineValue,
  encodeUtf8,
  globalObject,
  list,
  newError,
  stringOf,
} from './intrinsics.js';

/**
 * `fetch(url, init)`, close to the web's, made by the server on the script's behalf (the child
 * has no network): the server allows only the origins, methods and paths its config lists, adds
 * their credentials itself, and answers the response, which becomes a `Response` here. A refusal
 * rejects with ToolRefused (its `code` names the rule: FETCH_ORIGIN, …), a failure on the way with
 * TypeError, as the web's fetch does. `Headers` and `Response` are the web's, in brief.
 */
export function installFetch(calls: Calls): void {
  const fetch = (input?: unknown, init?: unknown): Promise<unknown> => {
    let argsJson: string;
    let label: string;
    try {
      const request = requestOf(input, init);
      argsJson = JSONStringify(request);
      label = `fetch(${JSONStringify(request.url)})`;
    } catch (error) {
      return rejected(error);
    }
    let answer: Promise<unknown>;
    try {
      answer = calls.callApi('fetch', argsJson, label);
    } catch (error) {
      return rejected(error);
    }
    return PromiseThen(answer, responseOf, withCode);
  };
  defineValue(globalObject, 'fetch', fetch);
  defineValue(globalObject, 'Headers', Headers);
  defineValue(globalObject, 'Response', Response);
}

/** What the server takes (protocol/contract.ts, FETCH_CALLS). */
interface WireRequest {
  url: string;
  method: string;
  headers: Array<[string, string]>;
  redirect: string;
  body?: string;
  bodyBase64?: string;
}

/** What the server answers (src/script-host/apis.ts, FetchAnswer). */
interface WireAnswer {
  readonly failed?: string;
  readonly status: number;
  readonly statusText: string;
  readonly url: string;
  readonly redirected: boolean;
  readonly headers: Array<[string, string]>;
  readonly bodyText?: string;
  readonly bodyBase64?: string;
}

const FORBIDDEN_METHODS = ['CONNECT', 'TRACE', 'TRACK'];

function requestOf(input: unknown, init: unknown): WireRequest {
  if (typeof input !== 'string') {
    throw newError(
      TypeErrorConstructor,
      `fetch(url, init): url must be a string such as "https://api.example.com/items", not ${typeOf(input)}`,
    );
  }
  const options = init === undefined || init === null ? blank<Record<string, unknown>>() : init;
  if (typeof options !== 'object')
    throw newError(TypeErrorConstructor, `fetch(url, init): init must be an object, not ${typeOf(init)}`);
  const given = options as Record<string, unknown>;
  const methodGiven = given.method;
  let method = 'GET';
  if (methodGiven !== undefined) {
    if (typeof methodGiven !== 'string' || !isToken(methodGiven)) {
      throw newError(
        TypeErrorConstructor,
        `fetch(url, init): method must be an HTTP method such as "POST", not ${describe(methodGiven)}`,
      );
    }
    method = StringToUpperCase(methodGiven);
  }
  if (indexIn(FORBIDDEN_METHODS, method) !== -1)
    throw newError(TypeErrorConstructor, `fetch(url, init): ${method} is a method fetch never sends`);
  const headers = new Headers(given.headers);
  const redirect = given.redirect === undefined ? 'follow' : given.redirect;
  if (redirect !== 'follow' && redirect !== 'manual' && redirect !== 'error') {
    throw newError(
      TypeErrorConstructor,
      `fetch(url, init): redirect must be "follow", "manual" or "error", not ${describe(redirect)}`,
    );
  }
  const signal = given.signal;
  if (signal !== undefined && signal !== null) {
    throw newError(
      TypeErrorConstructor,
      "fetch(url, init): signal is not supported (a script has no AbortController); the server's fetchTimeoutMs bounds each fetch",
    );
  }
  const request = blank<WireRequest>();
  request.url = input;
  request.method = method;
  request.redirect = redirect;
  const body = given.body;
  if (body !== undefined && body !== null) {
    if (method === 'GET' || method === 'HEAD')
      throw newError(TypeErrorConstructor, `fetch(url, init): a ${method} request has no body`);
    if (typeof body === 'string') {
      request.body = body;
      if (!hasHeader(headers, 'content-type')) setHeader(headers, 'content-type', 'text/plain;charset=UTF-8');
    } else {
      const bytes = bytesOf(body);
      if (bytes === undefined) {
        throw newError(
          TypeErrorConstructor,
          `fetch(url, init): body must be a string (JSON.stringify(value) for JSON), a Uint8Array or an ArrayBuffer, not ${typeOf(body)}`,
        );
      }
      request.bodyBase64 = Uint8ArrayToBase64(bytes);
    }
  }
  request.headers = pairsOf(headers);
  return request;
}

/** The bytes of an ArrayBuffer, a typed array or a DataView; undefined for anything else. */
function bytesOf(value: unknown): Uint8Array | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (TypedArrayKind(value) !== undefined) {
    return new Uint8ArrayConstructor(TypedArrayBuffer(value), TypedArrayByteOffset(value), TypedArrayByteLength(value));
  }
  if (ArrayBufferIsView(value))
    return new Uint8ArrayConstructor(DataViewBuffer(value), DataViewByteOffset(value), DataViewByteLength(value));
  try {
    ArrayBufferByteLength(value);
  } catch {
    return undefined;
  }
  return new Uint8ArrayConstructor(value as ArrayBuffer);
}

/** The answer as a Response, or the TypeError of a fetch that failed on the way. */
function responseOf(answer: unknown): unknown {
  const wire = answer as WireAnswer;
  if (typeof wire.failed === 'string') throw newError(TypeErrorConstructor, wire.failed);
  return makeResponse(wire);
}

/** A refusal carries its code as `code` (`FETCH_ORIGIN`, `APPROVAL_DENIED`, …), read from its message. */
function withCode(error: unknown): never {
  if (ErrorIsError(error) && ObjectGetPrototypeOf(error) === ToolRefused.prototype) {
    const message = (error as { message: string }).message;
    const colon = StringIndexOf(message, ':');
    if (colon > 0) defineValue(error as object, 'code', StringSlice(message, 0, colon));
  }
  throw error;
}

// ---- Headers ----

/** The prelude's own ways into a Headers (none is on the class, where a script could replace it). */
let isHeaders: (value: unknown) => value is Headers;
let frozenHeaders: (pairs: ReadonlyArray<readonly [string, string]>) => Headers;
let pairsOf: (headers: Headers) => Array<[string, string]>;
let hasHeader: (headers: Headers, name: string) => boolean;
let setHeader: (headers: Headers, name: string, value: string) => void;

/** `Headers`, as the web's: names lower-cased, a repeated name's values joined with ", ", iterated in name order. */
class Headers {
  readonly #names = list<string>();
  readonly #values = list<string>();
  #immutable = false;

  constructor(init?: unknown) {
    if (init === undefined || init === null) return;
    if (typeof init !== 'object') {
      throw newError(
        TypeErrorConstructor,
        `Headers: init must be an object, a list of [name, value] pairs or Headers, not ${typeOf(init)}`,
      );
    }
    if (isHeaders(init)) {
      const pairs = pairsOf(init);
      for (let i = 0; i < pairs.length; i++) this.#add(pairs[i]![0], pairs[i]![1]);
    } else if (ArrayIsArray(init)) {
      const items = init as unknown[];
      for (let i = 0; i < items.length; i++) {
        const pair = items[i];
        if (!ArrayIsArray(pair) || (pair as unknown[]).length !== 2) {
          throw newError(TypeErrorConstructor, `Headers: each item of a list must be a [name, value] pair; item ${i} is not`);
        }
        this.#add(headerName((pair as unknown[])[0]), normalizedValue((pair as unknown[])[1]));
      }
    } else {
      const record = init as Record<string, unknown>;
      const keys = ObjectKeys(record);
      for (let i = 0; i < keys.length; i++) this.#add(headerName(keys[i]!), normalizedValue(record[keys[i]!]));
    }
  }

  static {
    isHeaders = (value): value is Headers => typeof value === 'object' && value !== null && #names in value;
    frozenHeaders = (pairs) => {
      const headers = new Headers();
      for (let i = 0; i < pairs.length; i++) headers.#add(pairs[i]![0], pairs[i]![1]);
      headers.#immutable = true;
      return headers;
    };
    pairsOf = (headers) => headers.#sortedPairs();
    hasHeader = (headers, name) => indexIn(headers.#names, name) !== -1;
    setHeader = (headers, name, value) => headers.#put(name, value);
  }

  append(name?: unknown, value?: unknown): void {
    this.#add(this.#writable(name), normalizedValue(value));
  }

  set(name?: unknown, value?: unknown): void {
    this.#put(this.#writable(name), normalizedValue(value));
  }

  delete(name?: unknown): void {
    const at = indexIn(this.#names, this.#writable(name));
    if (at === -1) return;
    for (let i = at; i + 1 < this.#names.length; i++) {
      this.#names[i] = this.#names[i + 1]!;
      this.#values[i] = this.#values[i + 1]!;
    }
    this.#names.length--;
    this.#values.length--;
  }

  get(name?: unknown): string | null {
    const at = indexIn(this.#names, headerName(name));
    return at === -1 ? null : this.#values[at]!;
  }

  has(name?: unknown): boolean {
    return indexIn(this.#names, headerName(name)) !== -1;
  }

  forEach(callback?: unknown, thisArg?: unknown): void {
    if (typeof callback !== 'function')
      throw newError(TypeErrorConstructor, 'Headers.forEach(callback): callback must be a function');
    const pairs = this.#sortedPairs();
    for (let i = 0; i < pairs.length; i++) ReflectApply(callback, thisArg, [pairs[i]![1], pairs[i]![0], this]);
  }

  entries(): IterableIterator<[string, string]> {
    const pairs = this.#sortedPairs();
    const out: Array<[string, string]> = [];
    for (let i = 0; i < pairs.length; i++) out[i] = [pairs[i]![0], pairs[i]![1]];
    return ArrayValues(out);
  }

  keys(): IterableIterator<string> {
    const pairs = this.#sortedPairs();
    const out: string[] = [];
    for (let i = 0; i < pairs.length; i++) out[i] = pairs[i]![0];
    return ArrayValues(out);
  }

  values(): IterableIterator<string> {
    const pairs = this.#sortedPairs();
    const out: string[] = [];
    for (let i = 0; i < pairs.length; i++) out[i] = pairs[i]![1];
    return ArrayValues(out);
  }

  #add(key: string, text: string): void {
    const at = indexIn(this.#names, key);
    if (at === -1) {
      this.#names[this.#names.length] = key;
      this.#values[this.#values.length] = text;
    } else {
      this.#values[at] = `${this.#values[at]!}, ${text}`;
    }
  }

  #put(key: string, text: string): void {
    const at = indexIn(this.#names, key);
    if (at === -1) this.#add(key, text);
    else this.#values[at] = text;
  }

  /** Name order, as the web's Headers iterates. */
  #sortedPairs(): Array<[string, string]> {
    const names = this.#names;
    const order = list<number>();
    for (let i = 0; i < names.length; i++) order[i] = i;
    ArraySort(order, (a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0));
    const pairs = list<[string, string]>();
    for (let i = 0; i < order.length; i++) {
      const pair = list<string>() as unknown as [string, string];
      pair[0] = names[order[i]!]!;
      pair[1] = this.#values[order[i]!]!;
      pairs[i] = pair;
    }
    return pairs;
  }

  #writable(name: unknown): string {
    if (this.#immutable) throw newError(TypeErrorConstructor, "Headers: a response's headers can't be changed");
    return headerName(name);
  }
}
// Its instances inherit from its own prototype alone, which inherits nothing: a base shared with the prelude's
// other classes would be one object a script reaches (Object.getPrototypeOf(Headers)) and changes for them all.
ObjectSetPrototypeOf(Headers.prototype, null);
// The web's Headers iterates as its entries() does: the same function.
// eslint-disable-next-line @typescript-eslint/unbound-method
defineValue(Headers.prototype, SymbolIterator as unknown as string, Headers.prototype.entries);

/** A header name, lower-cased; TypeError for one that isn't (RFC 9110's token). */
function headerName(name: unknown): string {
  const text = stringOf(name);
  if (!isToken(text)) throw newError(TypeErrorConstructor, `Headers: ${JSONStringify(text)} is not a header name`);
  return StringToLowerCase(text);
}

/** The value without leading or trailing spaces and tabs; TypeError for a line break or NUL inside. */
function normalizedValue(value: unknown): string {
  const text = stringOf(value);
  let start = 0;
  let end = text.length;
  while (start < end && isSpace(StringCharCodeAt(text, start))) start++;
  while (end > start && isSpace(StringCharCodeAt(text, end - 1))) end--;
  for (let i = start; i < end; i++) {
    const c = StringCharCodeAt(text, i);
    if (c === 0x0a || c === 0x0d || c === 0)
      throw newError(TypeErrorConstructor, 'Headers: a header value holds a line break or NUL');
  }
  return StringSlice(text, start, end);
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/** RFC 9110's token: letters, digits and !#$%&'*+-.^_`|~. */
function isToken(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const c = StringCharCodeAt(text, i);
    const alnum = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
    if (!alnum && StringIndexOf("!#$%&'*+-.^_`|~", StringFromCharCode(c)) === -1) return false;
  }
  return true;
}

// ---- Response ----

/** Given a response from the server, the Response a fetch resolves with. */
let makeResponse: (answer: WireAnswer) => Response;

/**
 * `Response`, as the web's in brief: status, statusText, ok, headers, url, redirected, and the
 * body read once by text(), json(), arrayBuffer() or bytes(). A script may make one too
 * (`new Response(body, {status, statusText, headers})`).
 */
class Response {
  status = 200;
  statusText = '';
  ok = true;
  headers: Headers;
  url = '';
  redirected = false;
  type = 'default';
  #text: string | undefined;
  #base64: string | undefined;
  #used = false;

  constructor(body?: unknown, init?: unknown) {
    if (typeof body === 'string') this.#text = body;
    else if (body !== undefined && body !== null) {
      const bytes = bytesOf(body);
      if (bytes === undefined) {
        throw newError(
          TypeErrorConstructor,
          `Response: body must be a string, a Uint8Array or an ArrayBuffer, not ${typeOf(body)}`,
        );
      }
      this.#base64 = Uint8ArrayToBase64(bytes);
    }
    const options = (init ?? blank<Record<string, unknown>>()) as Record<string, unknown>;
    if (typeof options !== 'object')
      throw newError(TypeErrorConstructor, `Response: init must be an object, not ${typeOf(init)}`);
    const status = options.status === undefined ? 200 : options.status;
    if (typeof status !== 'number' || status % 1 !== 0 || status < 200 || status > 599) {
      throw newError(RangeErrorConstructor, `Response: status must be a whole number from 200 to 599, not ${describe(status)}`);
    }
    this.status = status;
    this.ok = status >= 200 && status <= 299;
    this.statusText = options.statusText === undefined ? '' : stringOf(options.statusText);
    this.headers = new Headers(options.headers);
    if (typeof body === 'string' && !hasHeader(this.headers, 'content-type'))
      setHeader(this.headers, 'content-type', 'text/plain;charset=UTF-8');
  }

  static {
    makeResponse = (answer) => {
      const response = new Response();
      response.status = answer.status;
      response.statusText = answer.statusText;
      response.ok = answer.status >= 200 && answer.status <= 299;
      response.headers = frozenHeaders(answer.headers);
      response.url = answer.url;
      response.redirected = answer.redirected;
      response.type = 'basic';
      response.#text = answer.bodyText;
      response.#base64 = answer.bodyBase64;
      return response;
    };
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  text(): Promise<string> {
    return this.#read('text()', () => this.#textOf()) as Promise<string>;
  }

  json(): Promise<unknown> {
    return this.#read('json()', () => JSONParse(this.#textOf()));
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.#read('arrayBuffer()', () => TypedArrayBuffer(this.#bytesOf())) as Promise<ArrayBuffer>;
  }

  bytes(): Promise<Uint8Array> {
    return this.#read('bytes()', () => this.#bytesOf()) as Promise<Uint8Array>;
  }

  clone(): Response {
    if (this.#used) throw newError(TypeErrorConstructor, 'Response.clone(): the body has already been read');
    const copy = new Response();
    copy.status = this.status;
    copy.statusText = this.statusText;
    copy.ok = this.ok;
    copy.headers = new Headers(this.headers);
    copy.url = this.url;
    copy.redirected = this.redirected;
    copy.type = this.type;
    copy.#text = this.#text;
    copy.#base64 = this.#base64;
    return copy;
  }

  /** The body, once: a second read rejects with TypeError, as the web's does. */
  #read(method: string, take: () => unknown): Promise<unknown> {
    if (this.#used) return rejected(newError(TypeErrorConstructor, `Response.${method}: the body has already been read`));
    this.#used = true;
    try {
      return resolved(take());
    } catch (error) {
      return rejected(error);
    }
  }

  #textOf(): string {
    const text =
      this.#text !== undefined ? this.#text : this.#base64 !== undefined ? decodeUtf8(Uint8ArrayFromBase64(this.#base64)) : '';
    // The web's UTF-8 decode drops a byte order mark.
    return StringCharCodeAt(text, 0) === 0xfeff ? StringSlice(text, 1) : text;
  }

  #bytesOf(): Uint8Array {
    if (this.#base64 !== undefined) return Uint8ArrayFromBase64(this.#base64);
    return encodeUtf8(this.#text ?? '');
  }
}
// Its instances inherit from its own prototype alone, which inherits nothing: a base shared with the prelude's
// other classes would be one object a script reaches (Object.getPrototypeOf(Response)) and changes for them all.
ObjectSetPrototypeOf(Response.prototype, null);

/** 8,192: code units turned into a string at once while decoding. */
const DECODE_CHUNK = 8_192;

/** UTF-8 bytes as text, each ill-formed sequence a U+FFFD, as the web's decoder does. */
function decodeUtf8(bytes: Uint8Array): string {
  const pieces = list<string>();
  let units = list<number>();
  const emit = (unit: number): void => {
    units[units.length] = unit;
    if (units.length === DECODE_CHUNK) {
      pieces[pieces.length] = ReflectApply<undefined, number[], string>(StringFromCharCode, undefined, units);
      units = list<number>();
    }
  };
  const emitPoint = (point: number): void => {
    if (point < 0x10000) return emit(point);
    emit(0xd800 + ((point - 0x10000) >> 10));
    emit(0xdc00 + ((point - 0x10000) & 0x3ff));
  };
  let needed = 0;
  let seen = 0;
  let point = 0;
  let lower = 0x80;
  let upper = 0xbf;
  const length = TypedArrayByteLength(bytes);
  for (let i = 0; i < length; i++) {
    const byte = bytes[i]!;
    if (needed === 0) {
      if (byte <= 0x7f) emit(byte);
      else if (byte >= 0xc2 && byte <= 0xdf) {
        needed = 1;
        point = byte & 0x1f;
      } else if (byte >= 0xe0 && byte <= 0xef) {
        if (byte === 0xe0) lower = 0xa0;
        if (byte === 0xed) upper = 0x9f;
        needed = 2;
        point = byte & 0xf;
      } else if (byte >= 0xf0 && byte <= 0xf4) {
        if (byte === 0xf0) lower = 0x90;
        if (byte === 0xf4) upper = 0x8f;
        needed = 3;
        point = byte & 0x7;
      } else emit(0xfffd);
      continue;
    }
    if (byte < lower || byte > upper) {
      needed = 0;
      seen = 0;
      point = 0;
      lower = 0x80;
      upper = 0xbf;
      emit(0xfffd);
      // The byte starts what comes next.
      i--;
      continue;
    }
    lower = 0x80;
    upper = 0xbf;
    point = (point << 6) | (byte & 0x3f);
    if (++seen === needed) {
      emitPoint(point);
      needed = 0;
      seen = 0;
      point = 0;
    }
  }
  if (needed > 0) emit(0xfffd);
  pieces[pieces.length] = ReflectApply<undefined, number[], string>(StringFromCharCode, undefined, units);
  return ArrayJoin(pieces, '');
}

function resolved(value: unknown): Promise<unknown> {
  return new PromiseConstructor((resolve) => resolve(value));
}

function rejected(error: unknown): Promise<never> {
  return new PromiseConstructor<never>((_resolve, reject) => reject(error));
}

function indexIn(names: readonly string[], name: string): number {
  for (let i = 0; i < names.length; i++) if (names[i] === name) return i;
  return -1;
}

function typeOf(value: unknown): string {
  return value === null ? 'null' : typeof value;
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSONStringify(value) : typeOf(value);
}

// A script reads and calls these; it can't replace what they do for the next Response.
ObjectFreeze(Headers);
ObjectFreeze(Headers.prototype);
ObjectFreeze(Response);
ObjectFreeze(Response.prototype);
