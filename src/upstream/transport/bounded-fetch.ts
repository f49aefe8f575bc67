/**
 * The fetch a remote upstream's transport uses, with every answer bounded. The SDK reads an
 * `application/json` answer whole (`response.json()`) and each SSE event whole, however large: one
 * huge answer could take the server's memory. Here a JSON answer past the limit stops the download
 * and fails the request its POST carried; an SSE event past it is let go as it streams, and when it
 * answers a request of ours (its id is read on the way past) that request gets an error answer
 * instead (answer-check.ts). Either way exactly that call fails, as ResultTooLarge, and the
 * connection stays up.
 */
import { TransformStream, type Transformer, type TransformStreamDefaultController } from 'node:stream/web';
import type { FetchLike } from '@modelcontextprotocol/client';
import { IdScanner } from '../../json-rpc/id-scanner.js';
import { checkOversize, faultError } from './answer-check.js';
import type { ReadableStreamReadResult } from 'node:stream/web';
import { logFailure } from '../../support/log.js';

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const DATA_FIELD = Buffer.from('data:');

/** `fetch`, each answer's body bounded to `limit` bytes (a JSON body, or one SSE event). */
export function boundedFetch(limit: number, onSkipped: (what: string) => void, inner: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await inner(url, init);
    if (response.body === null) return response;
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type === 'application/json') return withBody(response, await readJsonWithin(response, limit));
    if (type === 'text/event-stream') {
      return withBody(response, response.body.pipeThrough(new TransformStream(new EventLimit(limit, onSkipped))));
    }
    return response;
  };
}

/** The body, or (past `limit`) a thrown error answer that fails the request the POST carried. */
async function readJsonWithin(response: Response, limit: number): Promise<Buffer> {
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { value, done } = (await reader.read()) as ReadableStreamReadResult<Uint8Array>;
    if (done) return Buffer.concat(chunks, length);
    length += value.length;
    if (length > limit) {
      await reader.cancel().catch(logFailure('cancelling a response body past its limit'));
      const declared = Number(response.headers.get('content-length'));
      throw faultError({
        kind: 'too_large',
        ...(Number.isInteger(declared) && declared > limit ? { bytes: declared } : {}),
        limit,
      });
    }
    chunks.push(value);
  }
}

/**
 * Passes SSE events on whole while each is within the limit. Past it, the event's bytes are let
 * go as they arrive, its data scanned for the JSON-RPC id, and at its end an error answer for that
 * id goes on in its place (or, without a usable id, nothing, and `onSkipped` says so).
 */
class EventLimit implements Transformer<Uint8Array, Uint8Array> {
  private kept: Buffer[] = [];
  private bytes = 0;
  private scanner = new IdScanner();
  /** The start of the current line, until it is known whether it is a `data:` line. */
  private head: Buffer | undefined = Buffer.alloc(0);
  private dataLine = false;
  private lineBytes = 0;
  /** The byte before the last one read: a `\r` before a newline ends a line as well. */
  private beforeLast: number | undefined;
  private last: number | undefined;
  private over = false;

  constructor(
    private readonly limit: number,
    private readonly onSkipped: (what: string) => void,
  ) {}

  transform(chunk: Uint8Array, controller: TransformStreamDefaultController<Uint8Array>): void {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let from = 0;
    while (from < bytes.length) {
      const newline = bytes.indexOf(NEWLINE, from);
      const end = newline === -1 ? bytes.length : newline + 1;
      this.take(bytes.subarray(from, end));
      if (newline !== -1 && this.endLine()) this.endEvent(controller);
      from = end;
    }
  }

  flush(controller: TransformStreamDefaultController<Uint8Array>): void {
    if (!this.over && this.bytes > 0) controller.enqueue(Buffer.concat(this.kept, this.bytes));
  }

  /** Part of one line, its newline included when it has one. */
  private take(piece: Buffer): void {
    this.beforeLast = piece.length >= 2 ? piece[piece.length - 2] : this.last;
    this.last = piece[piece.length - 1];
    this.bytes += piece.length;
    this.lineBytes += piece.length;
    if (!this.over) this.kept.push(piece);
    this.scan(piece);
    if (!this.over && this.bytes > this.limit) {
      this.over = true;
      this.kept = [];
    }
  }

  /** Feeds a `data:` line's value to the id scanner; other fields (event, id, retry) are not JSON. */
  private scan(piece: Buffer): void {
    let value = piece;
    if (this.head !== undefined) {
      this.head = Buffer.concat([this.head, piece]);
      if (this.head.length < DATA_FIELD.length && this.head.indexOf(NEWLINE) === -1) return;
      this.dataLine = this.head.subarray(0, DATA_FIELD.length).equals(DATA_FIELD);
      value = this.head.subarray(this.dataLine ? DATA_FIELD.length + (this.head[DATA_FIELD.length] === 0x20 ? 1 : 0) : 0);
      this.head = undefined;
    }
    if (this.dataLine) this.scanner.push(value);
  }

  /** At a newline: true when the line was empty, which ends the event. */
  private endLine(): boolean {
    const empty = this.lineBytes === 1 || (this.lineBytes === 2 && this.beforeLast === CARRIAGE_RETURN);
    this.lineBytes = 0;
    this.head = Buffer.alloc(0);
    this.dataLine = false;
    return empty;
  }

  private endEvent(controller: TransformStreamDefaultController<Uint8Array>): void {
    if (!this.over) controller.enqueue(Buffer.concat(this.kept, this.bytes));
    else {
      const checked = checkOversize({ bytes: this.bytes, ...this.scanner.result() }, this.limit);
      if ('skipped' in checked) this.onSkipped(checked.skipped);
      else controller.enqueue(Buffer.from(`event: message\ndata: ${JSON.stringify(checked.message)}\n\n`));
    }
    this.kept = [];
    this.bytes = 0;
    this.over = false;
    this.scanner = new IdScanner();
  }
}

/** The same answer (status, headers) with another body. */
function withBody(response: Response, body: NonNullable<ConstructorParameters<typeof Response>[0]>): Response {
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
