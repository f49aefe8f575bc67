/**
 * Reads a JSON-RPC message too large to hold, as a stream, in O(1) memory: it keeps the string,
 * escape and depth state and only the bytes of the top-level `"id"` value, so the id is found
 * wherever it stands (before or after a huge `params`), and notes which top-level keys appear.
 * The line may be cut short or not JSON at all; the scanner never throws.
 */

/** 1 KiB: the longest `"id"` value (as written) the scanner keeps; a longer one counts as unreadable. */
export const MAX_SCANNED_ID_BYTES = 1024;

/** What a message is, from its top-level keys: `method` with or without `id`, or `result`/`error`. */
export type MessageRole = 'request' | 'notification' | 'response';

export interface ScannedMessage {
  /** The top-level id when it is a string or a number; undefined when absent, null, too long or malformed. */
  readonly id: string | number | undefined;
  /** undefined when the line has none of `method`, `result`, `error` at the top level (or isn't an object). */
  readonly role: MessageRole | undefined;
}

/** Keys longer than this can't be one the scanner looks for, so their bytes are not kept. */
const MAX_KEY_BYTES = 16;

/** After an escape, how far a string is read byte by byte before searching ahead again. */
const ESCAPE_RUN_BYTES = 256;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

/** Where the scanner stands in the top-level object, outside strings. */
type Top = 'start' | 'key' | 'colon' | 'value' | 'scalar' | 'after-value' | 'done';

/** What the string being read is: a top-level key, the id's value, or anything else. */
type StringPurpose = 'key' | 'id' | 'skip';

export class IdScanner {
  private top: Top = 'start';
  /** Open objects and arrays, outside strings; 1 inside the top-level object. */
  private depth = 0;
  private string: StringPurpose | undefined;
  private escaped = false;
  /** The bytes of the key or id being read, undecoded; undefined once too long to be of use. */
  private kept: number[] | undefined;
  /** The top-level key whose value comes next. */
  private valueKey: string | undefined;
  private id: string | number | undefined;
  private readonly keys = { method: false, id: false, resultOrError: false };

  /** Feeds the next bytes of the line. */
  push(bytes: Buffer): void {
    const end = bytes.length;
    // The next quote and backslash in this chunk, each searched for once and reused.
    let nextQuote = -1;
    let nextBackslash = -1;
    let i = 0;
    while (i < end) {
      if (this.string !== undefined) {
        if (this.escaped) {
          this.escaped = false;
          this.keep(bytes[i]!);
          i += 1;
          continue;
        }
        let stop = i;
        if (this.string === 'skip') {
          // Bulk content, most of what an over-limit line holds: a jump when no escape comes
          // before the closing quote, else a byte loop for a while (dense escapes cost no search each).
          if (nextQuote < i) nextQuote = indexOrEnd(bytes, QUOTE, i);
          if (nextBackslash < i) nextBackslash = indexOrEnd(bytes, BACKSLASH, i);
          if (nextBackslash > nextQuote) stop = nextQuote;
          else {
            const until = Math.min(end, nextBackslash + ESCAPE_RUN_BYTES);
            stop = nextBackslash;
            while (stop < until && bytes[stop] !== QUOTE) stop += bytes[stop] === BACKSLASH ? 2 : 1;
            if (stop > end) {
              // The chunk ended on a backslash: the escaped byte opens the next chunk.
              this.escaped = true;
              return;
            }
            if (stop >= until && stop < end) {
              i = stop;
              continue;
            }
          }
        } else {
          while (stop < end && bytes[stop] !== QUOTE && bytes[stop] !== BACKSLASH) this.keep(bytes[stop++]!);
          if (stop < end && bytes[stop] === BACKSLASH) {
            this.escaped = true;
            this.keep(BACKSLASH);
            i = stop + 1;
            continue;
          }
        }
        if (stop >= end) return;
        this.endString();
        i = stop + 1;
        continue;
      }
      if (this.depth > 1) {
        i = this.skipNested(bytes, i);
        continue;
      }
      this.topByte(bytes[i]!);
      i += 1;
    }
  }

  /** What was found, once the whole line has been pushed. */
  result(): ScannedMessage {
    if (this.top === 'scalar') this.endScalar();
    const { method, id, resultOrError } = this.keys;
    const role: MessageRole | undefined = method ? (id ? 'request' : 'notification') : resultOrError ? 'response' : undefined;
    return { id: this.id, role };
  }

  private keep(byte: number): void {
    if (this.kept === undefined) return;
    const cap = this.string === 'key' ? MAX_KEY_BYTES : MAX_SCANNED_ID_BYTES;
    if (this.kept.length < cap) this.kept.push(byte);
    else this.kept = undefined;
  }

  private endString(): void {
    const purpose = this.string;
    this.string = undefined;
    if (purpose === 'key') {
      this.valueKey = this.kept === undefined ? undefined : decodeKey(this.kept);
      if (this.valueKey === 'method') this.keys.method = true;
      else if (this.valueKey === 'id') this.keys.id = true;
      else if (this.valueKey === 'result' || this.valueKey === 'error') this.keys.resultOrError = true;
      this.top = 'colon';
    } else if (purpose === 'id') {
      this.keep(QUOTE);
      this.takeId();
      this.top = 'after-value';
    } else if (this.depth === 1) this.top = 'after-value';
  }

  /** A byte outside strings, in the top-level object or before it. */
  private topByte(byte: number): void {
    switch (this.top) {
      case 'start':
        if (isWhitespace(byte)) return;
        if (byte === OPEN_BRACE) {
          this.depth = 1;
          this.top = 'key';
        } else this.top = 'done';
        return;
      case 'key':
        if (byte === QUOTE) this.startString('key');
        else if (byte === CLOSE_BRACE) this.top = 'done';
        return;
      case 'colon':
        if (byte === COLON) this.top = 'value';
        return;
      case 'value':
        if (isWhitespace(byte)) return;
        this.startValue(byte);
        return;
      case 'scalar':
        if (isWhitespace(byte) || byte === COMMA || byte === CLOSE_BRACE) {
          this.endScalar();
          this.afterValue(byte);
        } else this.keep(byte);
        return;
      case 'after-value':
        this.afterValue(byte);
        return;
      case 'done':
        return;
    }
  }

  private startValue(byte: number): void {
    const isId = this.valueKey === 'id';
    if (byte === QUOTE) {
      this.startString(isId ? 'id' : 'skip');
      if (isId) this.keep(QUOTE);
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      // An object or array is no id JSON-RPC allows.
      if (isId) this.id = undefined;
      this.depth = 2;
      this.top = 'after-value';
    } else {
      // A number or a literal: it runs to the next delimiter.
      this.kept = isId ? [byte] : undefined;
      this.top = 'scalar';
    }
  }

  private afterValue(byte: number): void {
    if (byte === COMMA) this.top = 'key';
    else if (byte === CLOSE_BRACE) this.top = 'done';
    else if (!isWhitespace(byte)) this.top = 'after-value';
  }

  private endScalar(): void {
    if (this.valueKey === 'id') this.takeId();
    this.top = 'after-value';
  }

  /** Inside a nested value, outside strings: runs to the next string or until the top level is back. */
  private skipNested(bytes: Buffer, from: number): number {
    let i = from;
    while (i < bytes.length) {
      const byte = bytes[i++]!;
      if (byte === QUOTE) {
        this.startString('skip');
        return i;
      }
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.depth += 1;
      else if ((byte === CLOSE_BRACE || byte === CLOSE_BRACKET) && --this.depth === 1) return i;
    }
    return i;
  }

  private startString(purpose: StringPurpose): void {
    this.string = purpose;
    this.kept = purpose === 'skip' ? undefined : [];
  }

  /** The id's bytes are complete: as JSON.parse would, a later `"id"` replaces an earlier one. */
  private takeId(): void {
    const raw = this.kept;
    this.kept = undefined;
    this.id = undefined;
    if (raw === undefined) return;
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(raw).toString('utf8'));
    } catch {
      return;
    }
    if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) this.id = value;
  }
}

function decodeKey(raw: number[]): string | undefined {
  try {
    const key: unknown = JSON.parse(`"${Buffer.from(raw).toString('utf8')}"`);
    return typeof key === 'string' ? key : undefined;
  } catch {
    return undefined;
  }
}

function indexOrEnd(bytes: Buffer, byte: number, from: number): number {
  const at = bytes.indexOf(byte, from);
  return at === -1 ? bytes.length : at;
}

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}
