/**
 * A POST's body screened before the SDK's transport sees it, with the rules stdio's RequestGate
 * applies to a line (src/mcp/method-schema-check.ts): every request gets one answer. A request whose method or
 * params can't be served is answered here with its JSON-RPC error and id (HTTP 200, as any other
 * answer); a body that is no message, or a notification that doesn't hold, gets an HTTP error
 * status, as Streamable HTTP asks of input the server can't accept.
 */
import { ProtocolErrorCode, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/server';
import { parseLine } from '../json-rpc/parse-line.js';
import { httpRefusal, type HttpRefusal } from './refusal.js';
import { checkNotification, checkRequest } from '../mcp/method-schema-check.js';
import { requestLabel } from '../support/echo.js';

export type Screened =
  /** Hand it to the session's transport. */
  | { readonly kind: 'pass'; readonly message: JSONRPCMessage }
  /** Answer the POST with this. */
  | { readonly kind: 'refuse'; readonly refusal: HttpRefusal; readonly what: string }
  /** A response to one of our requests that can't be read: that request fails with `why`. */
  | { readonly kind: 'fail-own'; readonly id: RequestId; readonly why: string };

/** `serves`: whether the session's Server has a handler for a request method. */
export function screenBody(text: string, serves: (method: string) => boolean): Screened {
  const parsed = parseLine(text);
  switch (parsed.kind) {
    case 'not-json':
      return refuse(
        httpRefusal(
          400,
          `Parse error: the body is not JSON (${parsed.problem}); each POST carries one JSON-RPC message`,
          {},
          ProtocolErrorCode.ParseError,
        ),
        'a body',
      );
    case 'not-json-rpc': {
      const { id, role, value, problem } = parsed;
      if (Array.isArray(value)) {
        return refuse(
          httpRefusal(400, 'Invalid Request: the body is a JSON array (a batch); send one JSON-RPC message per POST'),
          'a batch',
        );
      }
      if (role === 'request' && id !== undefined) {
        const request = value as Record<string, unknown>;
        const refusal = checkRequest(request, serves) ?? {
          code: ProtocolErrorCode.InvalidRequest,
          message: `Invalid Request: ${problem}`,
        };
        return refuse(httpRefusal(200, refusal.message, {}, refusal.code, id), requestLabel(id, request.method));
      }
      if (role === 'response' && id !== undefined) {
        return { kind: 'fail-own', id, why: `the client answered with something that is not a JSON-RPC response: ${problem}` };
      }
      return refuse(httpRefusal(400, `Invalid Request: ${problem}`), role === 'notification' ? 'a notification' : 'a body');
    }
    case 'message': {
      const { message } = parsed;
      if ('method' in message && 'id' in message) {
        const refusal = checkRequest(message, serves);
        if (refusal !== undefined)
          return refuse(
            httpRefusal(200, refusal.message, {}, refusal.code, message.id),
            requestLabel(message.id, message.method),
          );
      } else if ('method' in message) {
        const problem = checkNotification(message);
        if (problem !== undefined)
          return refuse(httpRefusal(400, `Invalid notification ${message.method}: ${problem}`), `notification ${message.method}`);
      }
      return { kind: 'pass', message };
    }
  }
}

function refuse(refusal: HttpRefusal, what: string): Screened {
  return { kind: 'refuse', refusal, what };
}
