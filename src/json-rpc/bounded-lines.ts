/**
 * Newline-delimited JSON-RPC, read with a bound: a line within the limit is handed on whole; a
 * line over it is never held, only scanned as it streams past for its id, then reported, and
 * reading goes on with the next line. Memory stays O(limit) whatever arrives.
 *
 * Our own, because the SDK's `ReadBuffer` throws once its buffer passes 10 MiB and its stdio
 * transports then end the connection: one large message would cost every call on it.
 */
import { IdScanner, type MessageRole } from './id-scanner.js';

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** A line over the limit: how long it was, and what could be read of it on the way past. */
export interface OversizeLine {
  /** The line's length in bytes, without its newline. */
  readonly bytes: number;
  /** Its top-level `"id"`, when it had a readable string or number id. */
  readonly id: string | number | undefined;
  /** What its top-level keys make it; undefined when they make it nothing JSON-RPC knows. */
  readonly role: MessageRole | undefined;
}

export interface LineSink {
  /** A line within the limit (its newline and a trailing `\r` removed; blank lines are skipped). */
  line(text: string): void;
  /** A line over the limit, once its newline has arrived. */
  oversize(line: OversizeLine): void;
}

export class BoundedLineReader {
  /** The current line's pieces while it is within the limit. */
  private parts: Buffer[] = [];
  private length = 0;
  /** Set while the current line is over the limit: its bytes pass through it and are dropped. */
  private scanner: IdScanner | undefined;

  constructor(
    /** The longest line handed on whole, in bytes. */
    readonly maxLineBytes: number,
    private readonly sink: LineSink,
  ) {}

  /** Bytes as they arrive. */
  push(chunk: Buffer): void {
    let from = 0;
    while (from < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, from);
      const end = newline === -1 ? chunk.length : newline;
      this.take(chunk.subarray(from, end));
      if (newline === -1) return;
      this.endLine();
      from = newline + 1;
    }
  }

  /**
   * The input ended. A last line without its newline is incomplete, so it is not handed on;
   * returns its length in bytes (0 when the input ended on a newline), for a log line.
   */
  end(): number {
    const left = this.length;
    this.parts = [];
    this.length = 0;
    this.scanner = undefined;
    return left;
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    this.length += piece.length;
    if (this.scanner !== undefined) {
      this.scanner.push(piece);
      return;
    }
    if (this.length <= this.maxLineBytes) {
      this.parts.push(piece);
      return;
    }
    // Past the limit: what was kept goes through the scanner and is let go.
    this.scanner = new IdScanner();
    for (const part of this.parts) this.scanner.push(part);
    this.parts = [];
    this.scanner.push(piece);
  }

  private endLine(): void {
    const { scanner, length } = this;
    const parts = this.parts;
    this.parts = [];
    this.length = 0;
    this.scanner = undefined;
    if (scanner !== undefined) {
      this.sink.oversize({ bytes: length, ...scanner.result() });
      return;
    }
    if (length === 0) return;
    let line = parts.length === 1 ? parts[0]! : Buffer.concat(parts, length);
    if (line[line.length - 1] === CARRIAGE_RETURN) line = line.subarray(0, line.length - 1);
    const text = line.toString('utf8');
    if (text.trim() === '') return;
    this.sink.line(text);
  }
}
