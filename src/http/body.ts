/**
 * A POST's body, read within maxMessageBytes: a declared Content-Length over the limit is refused
 * before a byte is read, and a body that grows past it is refused as soon as it does, never held
 * whole. Ours rather than the SDK's readRequestBody, which reads a web Request: on node:http the
 * body arrives as the IncomingMessage stream, and reading it here spares wrapping it in one.
 */
import type { IncomingMessage } from 'node:http';
import { logFailure } from '../support/log.js';

export type Body = { readonly text: string } | { readonly tooLarge: number };

/** The body as text, or `tooLarge` with the bytes known so far (declared, or read past the limit). */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Body> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    discardRest(req);
    return Promise.resolve({ tooLarge: declared });
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > maxBytes) {
        req.off('data', onData);
        req.off('end', onEnd);
        chunks.length = 0;
        discardRest(req);
        resolve({ tooLarge: received });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => resolve({ text: Buffer.concat(chunks, received).toString('utf8') });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', reject);
  });
}

/**
 * What is still coming is read and dropped, not left unread: the refusal closes the connection,
 * and a socket closed with unread bytes resets, which can cost the client the answer itself.
 */
function discardRest(req: IncomingMessage): void {
  req.on('error', logFailure('reading the rest of a refused request'));
  req.resume();
}
