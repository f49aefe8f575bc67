/**
 * node:http on one side, the SDK's web-standard transport on the other: a request's headers as
 * a web Request (its body already read and parsed by us), and the transport's Response streamed
 * back, waiting for the socket to drain, and cancelled when the client goes away.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ReadableStreamReadResult } from 'node:stream/web';
import { logFailure } from '../support/log.js';

/** The request as the SDK's transport reads it: method and headers; the body travels as `parsedBody`. */
export function webRequestOf(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(new URL(req.url ?? '/', 'http://localhost'), { method: req.method ?? 'GET', headers });
}

/**
 * Writes the transport's answer; resolves when the body has ended, or the client has gone. What
 * comes within one turn of the event loop leaves in one write: the headers with the first event,
 * the end with the last (a ping's answer is one packet, not three). An answer that takes longer
 * gets its headers at once, so the client knows its stream is open.
 */
export async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => res.setHeader(name, value));
  if (response.body === null) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const gone = new Promise<void>((resolve) => res.once('close', resolve));
  // The client went away: the transport forgets the stream (its cancel), and nothing more is read.
  void gone.then(() => reader.cancel().catch(logFailure('cancelling the stream of a client that went away')));
  const flushHeaders = setImmediate(() => res.flushHeaders());
  // Writes within one turn are corked together, and uncorked at the end of the turn or before
  // end(): on Node 24 (and at times 22), end() on a corked response left what was corked unsent,
  // and the client waited for an answer the server thought it had given.
  let uncorkAtTurnEnd: NodeJS.Immediate | undefined;
  const uncork = (): void => {
    if (uncorkAtTurnEnd === undefined) return;
    clearImmediate(uncorkAtTurnEnd);
    uncorkAtTurnEnd = undefined;
    res.uncork();
  };
  try {
    for (;;) {
      const { done, value } = (await reader.read()) as ReadableStreamReadResult<Uint8Array>;
      if (done || res.destroyed) break;
      clearImmediate(flushHeaders);
      if (uncorkAtTurnEnd === undefined) {
        res.cork();
        uncorkAtTurnEnd = setImmediate(uncork);
      }
      if (!res.write(value)) {
        uncork();
        await Promise.race([new Promise((resolve) => res.once('drain', resolve)), gone]);
      }
    }
  } catch {
    // A stream the transport errored, or one cancelled as the client left: nothing more to send.
  } finally {
    clearImmediate(flushHeaders);
    uncork();
    res.end();
  }
}
