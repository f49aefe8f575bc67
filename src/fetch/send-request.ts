/**
 * One HTTP request of a fetch (a redirect makes another): sent with Node's own http and https,
 * a new connection each (no pool, so nothing of one request is left for the next; no cookie jar),
 * to an address the lookup checked (checked-lookup.ts). Its body is read as it streams in,
 * decompressed, and counted: past the cap reading stops and the connection is dropped, so a
 * huge body is never held.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { CodemodeError } from '../support/errors.js';
import { checkLiteralAddress, checkedLookup, type Resolver } from './checked-lookup.js';

export interface OneRequest {
  readonly url: URL;
  readonly method: string;
  /** Every header to send, names lower-cased, none twice. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body?: Buffer;
  readonly allowPrivate: boolean;
  readonly resolve: Resolver;
  /** Aborts the request and its body's reading. */
  readonly signal: AbortSignal;
  /** The most body bytes read (decompressed); past it BodyTooLargeError. */
  readonly maxBytes: number;
}

export interface OneResponse {
  readonly status: number;
  readonly statusText: string;
  /** As received, names lower-cased, in order. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer;
}

/** A body past the cap: declared so by its Content-Length, or read that far. */
export class BodyTooLargeError extends CodemodeError {
  override readonly name = 'BodyTooLargeError';
  readonly code = 'FETCH_TOO_LARGE';

  constructor(
    readonly status: number,
    readonly maxBytes: number,
    readonly declared: number | undefined,
  ) {
    super(declared !== undefined ? `its Content-Length is ${declared} bytes` : `its body went past ${maxBytes} bytes`);
  }
}

/**
 * Sends the request; resolves with the response and its body, read whole unless `keepBody` says
 * otherwise for its status and headers (a redirect that is followed: its body is dropped unread).
 */
export function sendRequest(
  request: OneRequest,
  keepBody: (status: number, headers: ReadonlyArray<readonly [string, string]>) => boolean,
): Promise<OneResponse> {
  const { url } = request;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // Node connects to an IP address without a lookup: checked here instead.
  if (isIP(host) !== 0 && !request.allowPrivate) checkLiteralAddress(host);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = send({
      protocol: url.protocol,
      hostname: host,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: request.method,
      headers: Object.fromEntries(request.headers),
      agent: false,
      lookup: checkedLookup(request.allowPrivate, request.resolve),
      signal: request.signal,
    });
    outgoing.on('error', reject);
    outgoing.on('response', (incoming) => {
      const status = incoming.statusCode ?? 0;
      const headers = pairsOf(incoming.rawHeaders);
      const head = { status, statusText: incoming.statusMessage ?? '', headers };
      if (!keepBody(status, headers) || request.method === 'HEAD' || status === 204 || status === 304) {
        incoming.destroy();
        resolve({ ...head, body: Buffer.alloc(0) });
        return;
      }
      readBody(incoming, request.maxBytes).then((body) => resolve({ ...head, body }), reject);
    });
    outgoing.end(request.body);
  });
}

/** The body, decompressed as its Content-Encoding says, within `maxBytes`. */
function readBody(incoming: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const status = incoming.statusCode ?? 0;
  const declared = Number(incoming.headers['content-length']);
  const encoding = (incoming.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoded = decoderOf(encoding);
  // A declared length counts only for a body sent as it is: compressed, it says nothing of what it becomes.
  if (decoded === undefined && Number.isSafeInteger(declared) && declared > maxBytes) {
    incoming.destroy();
    return Promise.reject(new BodyTooLargeError(status, maxBytes, declared));
  }
  const stream: Readable = decoded === undefined ? incoming : incoming.pipe(decoded);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const fail = (error: Error): void => {
      incoming.destroy();
      stream.destroy();
      reject(error);
    };
    incoming.on('error', fail);
    stream.on('error', fail);
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) return fail(new BodyTooLargeError(status, maxBytes, undefined));
      chunks.push(chunk);
    });
    stream.on('end', () => resolve(Buffer.concat(chunks, bytes)));
    // The peer closed before the body's end (incoming 'aborted' in older Node): no 'end' comes.
    incoming.on('close', () => {
      if (!incoming.complete) fail(new Error('the connection closed before the body ended'));
    });
  });
}

function decoderOf(encoding: string): Transform | undefined {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

/** Node's raw header list (name, value, name, value, …) as pairs, names lower-cased. */
function pairsOf(raw: readonly string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i]!.toLowerCase(), raw[i + 1]!]);
  return pairs;
}
