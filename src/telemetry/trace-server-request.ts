import { activeTelemetry, type TraceContext } from './telemetry.js';

/**
 * Handles a client's request inside its server span (`tools/call code_execution`), continuing the
 * client's trace when its `_meta` carries a `traceparent`; `handle` gets the span's context, for
 * what the request starts (a script, a call). With telemetry off it only handles.
 */
export function traceServerRequest<T>(
  method: string,
  target: string | undefined,
  meta: unknown,
  handle: (trace: TraceContext | undefined) => Promise<T>,
  ids: { readonly requestId?: string | number; readonly sessionId?: string } = {},
): Promise<T> {
  return activeTelemetry().serverRequest({ method, meta, ...(target !== undefined ? { target } : {}), ...ids }, handle);
}
