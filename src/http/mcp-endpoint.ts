/**
 * `/mcp`, Streamable HTTP, for both protocol revisions. A POST whose message claims the
 * 2026-07-28 revision (the SDK's `isLegacyRequest` says which) is served sessionless
 * (src/mcp/sessionless.ts). The rest is the 2025 revision: POST carries one message (its
 * answer comes as JSON or an SSE stream), GET opens the session's own stream, DELETE ends the
 * session; every request but an `initialize` names its session with `Mcp-Session-Id`, and the
 * SDK's transport checks `MCP-Protocol-Version`. Bodies are read within maxMessageBytes; a 2025
 * one is screened (screen.ts) before the transport.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ProtocolErrorCode,
  isInitializeRequest,
  isLegacyRequest,
  type AuthInfo,
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
import { Logger, type Log } from '../support/log.js';
import type { Sessionless } from '../mcp/sessionless.js';
import { carriesRequestEnvelope } from '../mcp/request-envelope.js';
import { HEADER_MISMATCH, paramHeaderMismatch } from '../support/param-headers.js';

export interface McpEndpointOptions {
  readonly maxMessageBytes: number;
  readonly log: Log;
  /** False once shutdown has begun: new sessions and 2026-07-28 requests are refused. */
  readonly accepting: () => boolean;
  /** True while the instance drains (SIGTERM, drainGraceMs): new sessions are refused, all else is served. */
  readonly draining: () => boolean;
  /** Where 2026-07-28 requests go. */
  readonly sessionless: Sessionless;
  /** The principal the caller's bearer token names in the tokens file (guard.ts); undefined: the shared one. */
  readonly principal: string | undefined;
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
  const found = findSession(sessions, sessionId, method, options.principal);
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
  const session = sessionId === undefined ? undefined : sessionOf(sessions, sessionId, options.principal);
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
      Logger.of(options.log).warn(`answered a POST with ${describeRefusal(refusal)}`);
      sendRefusal(res, refusal, true);
      return;
    }
    if (await servedSessionless(req, res, body.text, options)) return;
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
        Logger.of(options.log).warn(`answered ${screened.what} with ${describeRefusal(screened.refusal)}`);
        sendRefusal(res, screened.refusal);
        return;
      case 'fail-own':
        Logger.of(options.log).warn(`${screened.why} (to our request ${String(screened.id)})`);
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

/** Methods of the 2026-07-28 revision that the 2025 one has not. */
const SESSIONLESS_ONLY_METHODS: ReadonlySet<string> = new Set(['server/discover', 'subscriptions/listen']);

const MISSING_ENVELOPE =
  'is a request of MCP 2026-07-28, whose params carry _meta with "io.modelcontextprotocol/protocolVersion" (as "2026-07-28"), ' +
  '"io.modelcontextprotocol/clientInfo" and "io.modelcontextprotocol/clientCapabilities"; this one names no protocol version';

/** A 2026-07-28 message is answered sessionless; returns whether it was one. */
async function servedSessionless(
  req: IncomingMessage,
  res: ServerResponse,
  text: string,
  options: McpEndpointOptions,
): Promise<boolean> {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    // Not JSON: the 2025 path's screen says what is wrong with it.
    return false;
  }
  // A claim decides, not the SDK's isLegacyRequest alone: that sends a 2025 request whose `_meta` it
  // can't read (a bad progressToken) to the sessionless path, which would refuse it as no session's.
  const { method, params, id } = (typeof message === 'object' && message !== null ? message : {}) as {
    method?: unknown;
    params?: unknown;
    id?: RequestId;
  };
  if (!carriesRequestEnvelope(params)) {
    if (!SESSIONLESS_ONLY_METHODS.has(method as string)) return false;
    // A method of the 2026-07-28 revision only, without its envelope: the envelope is what is wrong.
    sendRefusal(
      res,
      httpRefusal(400, `Invalid params: ${String(method)} ${MISSING_ENVELOPE}`, {}, ProtocolErrorCode.InvalidParams, id),
    );
    return true;
  }
  if (await isLegacyRequest(webRequestOf(req), message)) return false;
  if (!options.accepting()) {
    sendRefusal(
      res,
      httpRefusal(
        503,
        'Service Unavailable: the server is shutting down; send the request to another instance',
        { 'Retry-After': '1' },
        -32000,
      ),
    );
    return true;
  }
  const mismatch = toolHeaderMismatch(req, message, options.sessionless);
  if (mismatch !== undefined) {
    const id = (message as { id?: RequestId }).id;
    Logger.of(options.log).warn(`answered a request with HTTP 400: ${mismatch}`);
    sendRefusal(res, httpRefusal(400, `Bad Request: ${mismatch}`, {}, HEADER_MISMATCH, id));
    return true;
  }
  // Only the principal is read on the way (src/mcp/sessionless.ts principalOf); the token is not passed on.
  const authInfo: AuthInfo | undefined =
    options.principal === undefined ? undefined : { token: '', clientId: options.principal, scopes: [] };
  await sendResponse(
    res,
    await options.sessionless.handler.fetch(webRequestOf(req), {
      parsedBody: message,
      ...(authInfo !== undefined ? { authInfo } : {}),
    }),
  );
  return true;
}

/** For a tools/call: what is wrong with its tool's parameter headers (param-headers.ts), or undefined. */
function toolHeaderMismatch(req: IncomingMessage, message: unknown, sessionless: Sessionless): string | undefined {
  const { method, params } = message as { method?: unknown; params?: { name?: unknown; arguments?: unknown } };
  if (method !== 'tools/call' || typeof params?.name !== 'string') return undefined;
  return paramHeaderMismatch(req.headers, sessionless.inputSchemaOf(params.name), params.arguments);
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
    if (!options.accepting() || options.draining()) {
      sendRefusal(
        res,
        httpRefusal(
          503,
          `Service Unavailable: the server is ${options.accepting() ? 'draining before it shuts down' : 'shutting down'}; start a session on another instance`,
          { 'Retry-After': '1' },
          -32000,
        ),
      );
      return;
    }
    const full = sessions.refuseWhenFull('id' in screened.message ? screened.message.id : undefined);
    if (full !== undefined) {
      Logger.of(options.log).warn(full.body.error.message);
      sendRefusal(res, full);
      return;
    }
    const session = await sessions.open(options.principal);
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

/** The session of that id, when the caller is the principal that opened it: another principal's is not found. */
function sessionOf(sessions: HttpSessions, id: string, principal: string | undefined): HttpSession | undefined {
  const session = sessions.get(id);
  return session?.principal === principal ? session : undefined;
}

function findSession(
  sessions: HttpSessions,
  header: string | string[] | undefined,
  method: string,
  principal: string | undefined,
): { session: HttpSession } | { refusal: HttpRefusal } {
  if (typeof header !== 'string') {
    return {
      refusal: httpRefusal(
        400,
        `Bad Request: ${method} /mcp needs the Mcp-Session-Id header of a session; start one with an initialize POST`,
      ),
    };
  }
  const session = sessionOf(sessions, header, principal);
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
