/**
 * An HTTP answer made by us rather than by the SDK's transport: a status, and a JSON-RPC error
 * body saying what was wrong and what to do. The error carries the request's id when one could
 * be read, and none otherwise (as MCP's schema allows; the SDK's transport writes `id: null`).
 */
import type { ServerResponse } from 'node:http';
import { ProtocolErrorCode, type JSONRPCErrorResponse, type RequestId } from '@modelcontextprotocol/server';

export interface HttpRefusal {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: JSONRPCErrorResponse;
}

/** -32001: the code the SDK's transport gives "Session not found"; the others use -32000 for transport errors. */
export const SESSION_NOT_FOUND = -32001;

export function httpRefusal(
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code: number = status === 400 ? ProtocolErrorCode.InvalidRequest : -32000,
  id?: RequestId,
): HttpRefusal {
  return { status, headers, body: { jsonrpc: '2.0', ...(id !== undefined ? { id } : {}), error: { code, message } } };
}

/** Writes the refusal; `close` also ends the connection (a body we did not read is still coming). */
export function sendRefusal(res: ServerResponse, refusal: HttpRefusal, close = false): void {
  const body = JSON.stringify(refusal.body);
  res.writeHead(refusal.status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    ...(close ? { Connection: 'close' } : {}),
    ...refusal.headers,
  });
  res.end(body);
}
