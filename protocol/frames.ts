/**
 * Length-prefixed frames, shared by the server and a script's child.
 *
 * A frame is a 4-byte big-endian body length, then the body: a JSON message, optionally
 * followed by a newline and raw payload bytes (a tool result travels this way, so it is parsed
 * once, inside the script). JSON.stringify never writes a raw newline, so the first one splits.
 */

const HEADER_BYTES = 4;
const NEWLINE = 0x0a;

/**
 * A frame of `message`, and `payload` after it: bytes as they are, or a string (JSON text, which
 * holds no lone surrogate) written into the frame as UTF-8, with no buffer of its own between.
 */
export function encodeFrame(message: object, payload?: Uint8Array | string): Buffer {
  const json = JSON.stringify(message);
  const jsonBytes = Buffer.byteLength(json, 'utf8');
  const payloadBytes =
    payload === undefined ? 0 : typeof payload === 'string' ? Buffer.byteLength(payload, 'utf8') : payload.length;
  const bodyLength = jsonBytes + (payload === undefined ? 0 : 1 + payloadBytes);
  const frame = Buffer.allocUnsafe(HEADER_BYTES + bodyLength);
  frame.writeUInt32BE(bodyLength, 0);
  frame.write(json, HEADER_BYTES, 'utf8');
  if (payload !== undefined) {
    const at = HEADER_BYTES + jsonBytes + 1;
    frame[at - 1] = NEWLINE;
    if (typeof payload === 'string') frame.write(payload, at, 'utf8');
    else frame.set(payload, at);
  }
  return frame;
}

/** A frame body split into its JSON text and its payload (empty when there is none). */
export function splitFrameBody(body: Buffer): { json: string; payload: Buffer } {
  const newline = body.indexOf(NEWLINE);
  if (newline === -1) return { json: body.toString('utf8'), payload: body.subarray(body.length) };
  return { json: body.toString('utf8', 0, newline), payload: body.subarray(newline + 1) };
}

/**
 * Reassembles frames from a byte stream. Each body is copied into one buffer of the length its
 * header names, so a peer sending small pieces costs one buffer per frame, not one per piece.
 */
export class FrameDecoder {
  private readonly header = Buffer.alloc(HEADER_BYTES);
  private headerFilled = 0;
  private body: Buffer | null = null;
  private bodyFilled = 0;

  /**
   * @param maxBodyBytes a header naming more than this makes `push` report `too_large`
   *   before any of the body is buffered
   */
  constructor(private readonly maxBodyBytes: number) {}

  /** Feeds bytes; calls `onFrame` for each whole frame. Returns 'too_large' and stops at an oversized header. */
  push(chunk: Uint8Array, onFrame: (body: Buffer) => void): 'ok' | 'too_large' {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.body === null) {
        const take = Math.min(HEADER_BYTES - this.headerFilled, chunk.length - offset);
        this.header.set(chunk.subarray(offset, offset + take), this.headerFilled);
        this.headerFilled += take;
        offset += take;
        if (this.headerFilled < HEADER_BYTES) break;
        const length = this.header.readUInt32BE(0);
        if (length > this.maxBodyBytes) return 'too_large';
        this.body = Buffer.allocUnsafe(length);
        this.bodyFilled = 0;
        this.headerFilled = 0;
      }
      const take = Math.min(this.body.length - this.bodyFilled, chunk.length - offset);
      this.body.set(chunk.subarray(offset, offset + take), this.bodyFilled);
      this.bodyFilled += take;
      offset += take;
      if (this.bodyFilled === this.body.length) {
        const whole = this.body;
        this.body = null;
        onFrame(whole);
      }
    }
    return 'ok';
  }

  /** True when the stream ended cleanly between frames. */
  get idle(): boolean {
    return this.body === null && this.headerFilled === 0;
  }
}

/**
 * Counts the values in JSON text without parsing it (objects, arrays, strings, numbers,
 * literals), and stops early once past `max`. Returns the count, or `max + 1` when past it.
 * Malformed text is left for JSON.parse to reject; the count is only a bound.
 */
export function countJsonValues(text: string, max: number): number {
  let count = 0;
  let expectValue = true;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the string; a string before ':' is a key, not a value.
      i++;
      while (i < length) {
        const s = text.charCodeAt(i);
        if (s === 0x5c /* \ */) i += 2;
        else if (s === 0x22) break;
        else i++;
      }
      if (expectValue && !isKey(text, i + 1)) {
        if (++count > max) return max + 1;
      }
      expectValue = false;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++count > max) return max + 1;
      expectValue = true;
    } else if (c === 0x2c /* , */ || c === 0x3a /* : */) {
      expectValue = true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      expectValue = false;
    } else if (expectValue && c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
      // The first character of a number or a literal.
      if (++count > max) return max + 1;
      expectValue = false;
    }
  }
  return count;
}

function isKey(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3a) return true;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return false;
  }
  return false;
}

/** JSON text parsed, when it holds at most `maxValues` values (counted before parsing) and is JSON; else undefined. */
export function parseCountedJson(text: string, maxValues: number): { readonly value: unknown } | undefined {
  if (countJsonValues(text, maxValues) > maxValues) return undefined;
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}
