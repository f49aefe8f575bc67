/**
 * A client's request or notification checked against the SDK's own schema for its method before
 * the SDK sees it, so each bad one gets a JSON-RPC error that names the field: the SDK's stdio
 * transport drops a request its envelope schema rejects (no answer at all), and its handlers
 * answer a bad `initialize` or `logging/setLevel` with `-32603` and a zod dump.
 */
import { ProtocolErrorCode, specTypeSchemas, type StandardSchemaV1 } from '@modelcontextprotocol/server';
import { quoteInput } from '../support/echo.js';
import { describeIssues } from '../support/describe-issues.js';

/** A JSON-RPC error to answer with. */
export interface Refusal {
  readonly code: ProtocolErrorCode;
  readonly message: string;
}

/**
 * The schema of each method a client may send us, from the SDK's spec types. A method the server
 * serves that is missing here is still checked, against the schema every request shares.
 */
const REQUEST_SCHEMAS: ReadonlyMap<string, StandardSchemaV1> = new Map<string, StandardSchemaV1>([
  ['initialize', specTypeSchemas.InitializeRequest],
  ['ping', specTypeSchemas.PingRequest],
  ['tools/list', specTypeSchemas.ListToolsRequest],
  ['tools/call', specTypeSchemas.CallToolRequest],
  ['logging/setLevel', specTypeSchemas.SetLevelRequest],
]);

const NOTIFICATION_SCHEMAS: ReadonlyMap<string, StandardSchemaV1> = new Map<string, StandardSchemaV1>([
  ['notifications/initialized', specTypeSchemas.InitializedNotification],
  ['notifications/cancelled', specTypeSchemas.CancelledNotification],
  ['notifications/progress', specTypeSchemas.ProgressNotification],
  ['notifications/roots/list_changed', specTypeSchemas.RootsListChangedNotification],
]);

/**
 * The error a request gets, or undefined when it may be served: `-32600` for a broken envelope,
 * `-32601` for a method the server doesn't serve (`serves`), `-32602` for params its method's
 * schema rejects.
 */
export function checkRequest(request: Record<string, unknown>, serves: (method: string) => boolean): Refusal | undefined {
  const { params, ...envelope } = request;
  const broken = issuesOf(specTypeSchemas.JSONRPCRequest, envelope);
  if (broken !== undefined) return { code: ProtocolErrorCode.InvalidRequest, message: `Invalid Request: ${broken}` };
  const method = request.method as string;
  if (!serves(method)) return { code: ProtocolErrorCode.MethodNotFound, message: `Method not found: ${quoteInput(method)}` };
  const schema = REQUEST_SCHEMAS.get(method) ?? specTypeSchemas.Request;
  const invalid = issuesOf(schema, params === undefined ? { method } : { method, params });
  if (invalid !== undefined)
    return { code: ProtocolErrorCode.InvalidParams, message: `Invalid params for ${method}: ${invalid}` };
  return undefined;
}

/** What is wrong with a notification, or undefined when it may be handled. */
export function checkNotification(notification: Record<string, unknown>): string | undefined {
  const { params, ...envelope } = notification;
  const broken = issuesOf(specTypeSchemas.JSONRPCNotification, envelope);
  if (broken !== undefined) return broken;
  const method = notification.method as string;
  const schema = NOTIFICATION_SCHEMAS.get(method) ?? specTypeSchemas.Notification;
  return issuesOf(schema, params === undefined ? { method } : { method, params });
}

function issuesOf(schema: StandardSchemaV1, value: unknown): string | undefined {
  const checked = schema['~standard'].validate(value) as StandardSchemaV1.Result<unknown>;
  return checked.issues === undefined ? undefined : describeIssues(checked.issues, value);
}
