/**
 * One line within the limit, as JSON-RPC: a message the SDK's own schemas accept, or a report of
 * what is wrong with it (never a throw), with the id and role read from it where it has them, so
 * the reader's owner can answer exactly the request, or fail exactly the call, it belongs to.
 */
import { specTypeSchemas, type JSONRPCMessage, type StandardSchemaV1 } from '@modelcontextprotocol/server';
import { describeIssues } from '../support/describe-issues.js';
import type { OversizeLine } from './bounded-lines.js';
import type { MessageRole } from './id-scanner.js';

export type ParsedLine =
  | { readonly kind: 'message'; readonly message: JSONRPCMessage }
  /** Not JSON at all: JSON-RPC's parse error (-32700). */
  | { readonly kind: 'not-json'; readonly problem: string }
  /** JSON, but not a JSON-RPC message the SDK accepts. */
  | {
      readonly kind: 'not-json-rpc';
      /** The parsed JSON, for a closer check (the server checks a request against its method's schema). */
      readonly value: unknown;
      /** Its top-level id, when a string or a number. */
      readonly id: string | number | undefined;
      /** What its keys make it: `method` (with `id`: a request), or `result`/`error`. */
      readonly role: MessageRole | undefined;
      /** What is wrong, field by field. */
      readonly problem: string;
    };

/** A line that is not a message the SDK accepts, with what could be read of it: for its reader's owner to answer. */
export type Rejection = ({ readonly kind: 'oversize' } & OversizeLine) | Exclude<ParsedLine, { kind: 'message' }>;

export function parseLine(text: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: 'not-json', problem: error instanceof Error ? error.message : String(error) };
  }
  const role = roleOf(value);
  const id = idOf(value);
  const schema = schemaFor(role, value);
  if (schema === undefined) {
    return {
      kind: 'not-json-rpc',
      value,
      id,
      role,
      problem: 'it is not a JSON-RPC message: an object with "method", "result" or "error"',
    };
  }
  const checked = schema['~standard'].validate(value) as StandardSchemaV1.Result<unknown>;
  if (checked.issues !== undefined)
    return { kind: 'not-json-rpc', value, id, role, problem: describeIssues(checked.issues, value) };
  return { kind: 'message', message: checked.value as JSONRPCMessage };
}

/** The role a message's own keys give it, as the scanner reads it from a line too long to parse. */
export function roleOf(value: unknown): MessageRole | undefined {
  if (!isObject(value)) return undefined;
  if (Object.hasOwn(value, 'method')) return Object.hasOwn(value, 'id') ? 'request' : 'notification';
  if (Object.hasOwn(value, 'result') || Object.hasOwn(value, 'error')) return 'response';
  return undefined;
}

function idOf(value: unknown): string | number | undefined {
  if (!isObject(value)) return undefined;
  const id = value.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : undefined;
}

function schemaFor(role: MessageRole | undefined, value: unknown): StandardSchemaV1 | undefined {
  switch (role) {
    case 'request':
      return specTypeSchemas.JSONRPCRequest;
    case 'notification':
      return specTypeSchemas.JSONRPCNotification;
    case 'response':
      return isObject(value) && Object.hasOwn(value, 'result')
        ? specTypeSchemas.JSONRPCResultResponse
        : specTypeSchemas.JSONRPCErrorResponse;
    case undefined:
      return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
