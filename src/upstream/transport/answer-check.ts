/**
 * Every line an upstream sends is checked here before the SDK's client sees it. The SDK drops a
 * response it can't parse (`"result": null`, a string, no result at all) with only an `onerror`,
 * and the request it answers stays open until its timeout: 60 s for a tool call. Here such a
 * response, and one too large to read, becomes an error answer to the request it names, so that
 * request ends at once and says what came; the connection stays up.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/client';
import { quoteInput } from '../../support/echo.js';
import type { OversizeLine } from '../../json-rpc/bounded-lines.js';
import { parseLine } from '../../json-rpc/parse-line.js';

/** What was wrong with an upstream's answer to one request. */
export type AnswerFault =
  | { readonly kind: 'invalid'; readonly detail: string }
  /** `bytes`: the answer's size, when known (an answer cut off unread may not say). */
  | { readonly kind: 'too_large'; readonly bytes?: number; readonly limit: number };

/** A message to hand to the SDK, or why a line was skipped (for one log line). */
export type Checked = { readonly message: JSONRPCMessage } | { readonly skipped: string };

/** Marks the error answers made here (in `error.data`), to tell them from the upstream's own. */
const FAULT_MARK = 'codemode-mcp:answer-fault';

/** One line within the read limit. */
export function checkLine(text: string): Checked {
  const parsed = parseLine(text);
  switch (parsed.kind) {
    case 'message':
      return { message: parsed.message };
    case 'not-json':
      return { skipped: `a line that isn't JSON (${parsed.problem}): ${quoteInput(text)}` };
    case 'not-json-rpc':
      // Anything with an id that isn't a request answers one of ours: end that request now.
      if (parsed.id !== undefined && parsed.role !== 'request' && parsed.role !== 'notification') {
        return { message: faultAnswer(parsed.id, { kind: 'invalid', detail: parsed.problem }) };
      }
      return { skipped: `a message that isn't valid JSON-RPC (${parsed.problem})` };
  }
}

/** One line past the read limit, skipped unread: a response among them ends its request. */
export function checkOversize(line: OversizeLine, limit: number): Checked {
  if (line.id !== undefined && line.role === 'response') {
    return { message: faultAnswer(line.id, { kind: 'too_large', bytes: line.bytes, limit }) };
  }
  const what = line.role === undefined ? 'message' : line.role;
  const id = line.id === undefined ? 'no readable id' : `id ${JSON.stringify(line.id)}`;
  return { skipped: `a ${what} of ${line.bytes} bytes (${id}), past the ${limit} bytes read from an upstream` };
}

/** The error answer that ends request `id` with `fault`, as if the upstream had sent it. */
export function faultAnswer(id: RequestId, fault: AnswerFault): JSONRPCErrorResponse {
  return {
    jsonrpc: '2.0',
    id,
    error: { code: ProtocolErrorCode.InternalError, message: faultMessage(fault), data: { [FAULT_MARK]: fault } },
  };
}

/** The error a request rejects with for `fault`, where there is no answer to replace (a fetch). */
export function faultError(fault: AnswerFault): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InternalError, faultMessage(fault), { [FAULT_MARK]: fault });
}

/** `N bytes` or `more than N bytes`. */
export function describeSize(fault: Extract<AnswerFault, { kind: 'too_large' }>): string {
  return fault.bytes === undefined ? `more than ${fault.limit} bytes` : `${fault.bytes} bytes`;
}

function faultMessage(fault: AnswerFault): string {
  return fault.kind === 'invalid'
    ? `the upstream's answer isn't a JSON-RPC result: ${fault.detail}`
    : `the upstream's answer was ${describeSize(fault)}, past the ${fault.limit} bytes read from an upstream`;
}

/** The fault behind an error a request rejected with, when the error answer was made here. */
export function faultOf(error: unknown): AnswerFault | undefined {
  if (!(error instanceof ProtocolError)) return undefined;
  const data: unknown = error.data;
  if (typeof data !== 'object' || data === null || !(FAULT_MARK in data)) return undefined;
  return (data as Record<typeof FAULT_MARK, AnswerFault>)[FAULT_MARK];
}
