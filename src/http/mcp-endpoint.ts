/**
 * `/mcp`, Streamable HTTP: POST carries one message (its answer comes as JSON or an SSE stream),
 * GET opens the session's own stream, DELETE ends the session. Every request but an `initialize`
 * names its session with `Mcp-Session-Id`; the SDK's transport checks `MCP-Protocol-Version`.
 * Bodies are read within maxMessageBytes and screened (http-screen.ts) before the transport.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ProtocolErrorCode,
  isInitializeRequest,
  isJsonContentType,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/server';
import { groupThousands } from '../../common/format-numbers.js';
import { SETTINGS, formatSettingValue } from '../config/settings.js';
import { readBody } from './body.js';
import { sendResponse, webRequestOf } from './exchange.js';
import { SESSION_NOT_FOUND, httpRefusal, sendRefusal, type HttpRefusal } from './refusal.js';
import { screenBody } from './screen.js';
import type { HttpSession, HttpSessions } from './sessions.js';
import type { Log } from '../support/log.js';

export interface McpEndpointOptions {
  readonly maxMessageBytes: number;
  readonly log: Log;
  /** False once shutdown has begun: new sessions are refused. */
  readonly accepting: () => boolean;
}

const METHODS = 'GET, POST, DELETE';

export async function serveMcp(
  req: IncomingMessage,
  res: ServerResponse,
  sessions: HttpSessions,
  options: McpEndpointOptions,
): Promise<void> {
  const method = req.method ?? '';
  if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
    sendRefusal(
      res,
      httpRefusal(
        405,
        `Method Not Allowed: ${method} /mcp; MCP over HTTP uses POST (messages), GET (the session's stream) and DELETE (end the session)`,
        { Allow: METHODS },
      ),
    );
    return;
  }
  const sessionId = req.headers['mcp-session-id'];
  if (method === 'POST') {
    await post(req, res, sessions, typeof sessionId === 'string' ? sessionId : undefined, options);
    return;
  }
  const found = findSession(sessions, sessionId, method);
  if ('refusal' in found) {
    sendRefusal(res, found.refusal);
    return;
  }
  await exchange(found.session, req, res);
}

async function post(
  req: IncomingMessage,
  res: ServerResponse,
  sessions: HttpSessions,
  sessionId: string | undefined,
  options: McpEndpointOptions,
): Promise<void> {
  const session = sessionId === undefined ? undefined : sessions.get(sessionId);
  // Held from before the body is read, so a slow upload does not let the session idle out.
  const done = session?.begin();
  try {
    if (!isJsonContentType(req.headers['content-type'] ?? null)) {
      sendRefusal(
        res,
        httpRefusal(
          415,
          `Unsupported Media Type: ${JSON.stringify(req.headers['content-type'] ?? '')}; a POST to /mcp carries JSON (Content-Type: application/json)`,
        ),
        true,
      );
      return;
    }
    const body = await readBody(req, options.maxMessageBytes);
    if ('tooLarge' in body) {
      const limit = formatSettingValue(SETTINGS.maxMessageBytes, options.maxMessageBytes);
      const refusal = httpRefusal(
        413,
        `Request too large: ${groupThousands(body.tooLarge)} bytes or more, over the server's limit of ${limit} (maxMessageBytes). ` +
          `Send less (a script can fetch large inputs through a tool instead), or start the server with a higher --${SETTINGS.maxMessageBytes.flag}`,
      );
      options.log(`codemode-mcp: answered a POST with ${describeRefusal(refusal)}`, 'warn');
      sendRefusal(res, refusal, true);
      return;
    }
    if (sessionId === undefined) {
      await postWithoutSession(req, res, sessions, body.text, options);
      return;
    }
    if (session === undefined) {
      sendRefusal(res, unknownSession(sessions, sessionId));
      return;
    }
    const screened = screenBody(body.text, (name) => session.client.serves(name));
    switch (screened.kind) {
      case 'refuse':
        options.log(`codemode-mcp: answered ${screened.what} with ${describeRefusal(screened.refusal)}`, 'warn');
        sendRefusal(res, screened.refusal);
        return;
      case 'fail-own':
        options.log(`codemode-mcp: ${screened.why} (to our request ${String(screened.id)})`, 'warn');
        await sendResponse(
          res,
          await session.transport.handleRequest(webRequestOf(req), {
            parsedBody: {
              jsonrpc: '2.0',
              id: screened.id,
              error: { code: ProtocolErrorCode.InvalidRequest, message: screened.why },
            },
          }),
        );
        return;
      case 'pass': {
        const response = await session.transport.handleRequest(webRequestOf(req), { parsedBody: screened.message });
        endCancelledStream(session, screened.message);
        await sendResponse(res, response);
      }
    }
  } finally {
    done?.();
  }
}

/** Only `initialize` may come without a session: it starts one. */
async function postWithoutSession(
  req: IncomingMessage,
  res: ServerResponse,
  sessions: HttpSessions,
  text: string,
  options: McpEndpointOptions,
): Promise<void> {
  const screened = screenBody(text, (name) => name === 'initialize');
  if (screened.kind === 'pass' && isInitializeRequest(screened.message)) {
    if (!options.accepting()) {
      sendRefusal(
        res,
        httpRefusal(
          503,
          'Service Unavailable: the server is shutting down; start a session on another instance',
          { 'Retry-After': '1' },
          -32000,
        ),
      );
      return;
    }
    const full = sessions.refuseWhenFull('id' in screened.message ? screened.message.id : undefined);
    if (full !== undefined) {
      options.log(`codemode-mcp: ${full.body.error.message}`, 'warn');
      sendRefusal(res, full);
      return;
    }
    const session = await sessions.open();
    const done = session.begin();
    try {
      await sendResponse(res, await session.transport.handleRequest(webRequestOf(req), { parsedBody: screened.message }));
    } finally {
      done();
    }
    return;
  }
  // A refusal other than "method not found" (only initialize is served without a session) answers as it stands.
  if (screened.kind === 'refuse' && screened.refusal.body.error.code !== (ProtocolErrorCode.MethodNotFound as number)) {
    sendRefusal(res, screened.refusal);
    return;
  }
  const id =
    screened.kind === 'refuse'
      ? screened.refusal.body.id
      : screened.kind === 'pass' && 'id' in screened.message
        ? screened.message.id
        : undefined;
  sendRefusal(
    res,
    httpRefusal(
      400,
      'Bad Request: no Mcp-Session-Id header. A session starts with an initialize request sent without one; ' +
        'every later request carries the id its answer gave in Mcp-Session-Id',
      {},
      undefined,
      id ?? undefined,
    ),
  );
}

/**
 * A cancelled request gets no answer (MCP), so the SDK's transport would hold its POST's stream
 * open until the client hangs up; it is ended here instead, as the client no longer reads it.
 */
function endCancelledStream(session: HttpSession, message: JSONRPCMessage): void {
  if (!('method' in message) || message.method !== 'notifications/cancelled' || 'id' in message) return;
  const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
  if (requestId !== undefined) session.transport.closeSSEStream(requestId);
}

/** GET and DELETE: the transport answers; a GET's stream counts as the session's open stream while it lasts. */
async function exchange(session: HttpSession, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const done = session.begin();
  let closeStream: (() => void) | undefined;
  try {
    const response = await session.transport.handleRequest(webRequestOf(req));
    if (req.method === 'GET' && response.ok) closeStream = session.streamOpened();
    await sendResponse(res, response);
  } finally {
    closeStream?.();
    done();
  }
}

/** `error -32602: ...` for a request's own error (HTTP 200), `413: ...` for an HTTP refusal; as stdio's log lines read. */
function describeRefusal(refusal: HttpRefusal): string {
  const { code, message } = refusal.body.error;
  return `${refusal.status === 200 ? `error ${code}` : `HTTP ${refusal.status}`}: ${message}`;
}

function findSession(
  sessions: HttpSessions,
  header: string | string[] | undefined,
  method: string,
): { session: HttpSession } | { refusal: HttpRefusal } {
  if (typeof header !== 'string') {
    return {
      refusal: httpRefusal(
        400,
        `Bad Request: ${method} /mcp needs the Mcp-Session-Id header of a session; start one with an initialize POST`,
      ),
    };
  }
  const session = sessions.get(header);
  return session === undefined ? { refusal: unknownSession(sessions, header) } : { session };
}

function unknownSession(sessions: HttpSessions, id: string): HttpRefusal {
  const shown = JSON.stringify(id.length > 200 ? `${id.slice(0, 200)}…` : id);
  const elsewhere = sessions.ownsId(id)
    ? 'it has ended (DELETE, idle past httpSessionIdleMs, or a restart of the server)'
    : 'it was made by another instance (its prefix names it): a load balancer must send every request of a session to the instance named by its Mcp-Session-Id prefix';
  return httpRefusal(
    404,
    `Session not found: ${shown}; ${elsewhere}. Start a new session with initialize`,
    {},
    SESSION_NOT_FOUND,
  );
}
