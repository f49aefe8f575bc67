import { activeTelemetry, type ServerRequestInfo, type TraceContext } from './telemetry.js';

/** What a request's server span needs of its context: the request's id and, in a session, the session's. */
export interface RequestIds {
  readonly requestId?: string | number;
  readonly sessionId?: string;
}

/**
 * Handles a client's request inside its server span (`tools/call code_execution`, `prompts/get
 * summary`, `resources/read`), continuing the client's trace when its `_meta` carries a
 * `traceparent`; `handle` gets the span's context, for what the request starts (a script, a call).
 * With telemetry off it only handles.
 */
export function traceServerRequest<T>(
  method: string,
  params: unknown,
  handle: (trace: TraceContext | undefined) => Promise<T>,
  ids: RequestIds = {},
): Promise<T> {
  const telemetry = activeTelemetry();
  if (!telemetry.on) return handle(undefined);
  return telemetry.serverRequest(describeRequest(method, params, ids), handle);
}

/**
 * The request as the MCP conventions name its span: the target is the tool of `tools/call` or the
 * prompt of `prompts/get`; a resource's URI is an attribute, never in the name (it would make a
 * span name per URI).
 */
function describeRequest(method: string, params: unknown, ids: RequestIds): ServerRequestInfo {
  const fields = params !== null && typeof params === 'object' ? (params as Record<string, unknown>) : {};
  const named = (method === 'tools/call' || method === 'prompts/get') && typeof fields.name === 'string';
  return {
    method,
    meta: fields._meta,
    ...(named ? { target: fields.name as string } : {}),
    ...(typeof fields.uri === 'string' && method.startsWith('resources/') ? { resourceUri: fields.uri } : {}),
    ...(ids.requestId !== undefined ? { requestId: ids.requestId } : {}),
    ...(ids.sessionId !== undefined ? { sessionId: ids.sessionId } : {}),
  };
}
