/**
 * What the rest of the server sees of telemetry: spans and metrics of client requests, scripts
 * and upstream calls, and the one instance in use. Off (the default) is `TELEMETRY_OFF`, whose
 * every method only runs what it is given: the OpenTelemetry SDK is loaded (start-telemetry.ts)
 * only when telemetry is on, so off costs a call and nothing else.
 */
import type { Context } from '@opentelemetry/api';

/** Where a span sits in its trace, handed down the call path explicitly (not AsyncLocalStorage). */
export type TraceContext = Context;

/** `_meta` fields to send with an upstream request: `traceparent` (and `tracestate`), as SEP-414 carries them. */
export type TraceMeta = Readonly<Record<string, string>>;

/** The W3C Trace Context fields of a `TraceMeta`, which an HTTP request also carries as headers of the same names. */
const TRACE_CONTEXT_FIELDS = ['traceparent', 'tracestate'] as const;

/** The `traceparent` and `tracestate` headers for a request whose `_meta` is `meta` (what of them it has). */
export function traceHeaders(meta: TraceMeta): Record<string, string> {
  return Object.fromEntries(TRACE_CONTEXT_FIELDS.flatMap((name) => (meta[name] !== undefined ? [[name, meta[name]]] : [])));
}

/** How one tool call ended: a result, a result with `isError`, refused before sending, or failed after. */
export type CallOutcome = 'answered' | 'tool_error' | 'refused' | 'failed';

/** A client request as the server span names it (`tools/call code_execution`). */
export interface ServerRequestInfo {
  readonly method: string;
  /** The tool or prompt it names, for the span's name; absent for a method that names none. */
  readonly target?: string;
  /** The resource it names (`resources/read`, `resources/subscribe`), an attribute only. */
  readonly resourceUri?: string;
  /** The request's `_meta`: a `traceparent` in it continues the client's trace. */
  readonly meta: unknown;
  readonly requestId?: string | number;
  readonly sessionId?: string;
}

/** One tool call a script (or a client, for an exposed tool) makes to an upstream. */
export interface UpstreamCallInfo {
  /** As scripts call it (`github__get_issue`). */
  readonly scriptName: string;
  /** The upstream's own name for it, as sent; the script name when no upstream has it. */
  readonly tool: string;
  /** The upstream's name; absent when no upstream has the tool (the call is refused). */
  readonly upstream?: string;
}

/** One HTTP request a script's fetch() has the server make (each redirect followed is another). */
export interface HttpRequestInfo {
  readonly method: string;
  /** The URL without its query and fragment, which may hold what a span should not carry. */
  readonly url: string;
  readonly serverAddress: string;
  readonly serverPort: number;
  /** 0 for the script's own URL; 1 for the first redirect followed, and so on. */
  readonly resendCount: number;
}

export interface ScriptStart {
  readonly id: string;
  readonly code: string;
}

export interface ScriptEnd {
  readonly status: string;
  /** UTF-8 bytes of the value the script returned (its JSON); absent when it returned none. */
  readonly valueBytes?: number;
}

/** One script's span, from its start to its ending. */
export interface ScriptTrace {
  /** The context its calls are made in: their spans are its children. */
  readonly context: TraceContext | undefined;
  /** Counts one of its calls by how it ends, for the span's attributes. */
  countCall(answer: Promise<{ readonly isError?: boolean }>): void;
  end(ending: ScriptEnd): void;
}

export interface Telemetry {
  readonly on: boolean;
  /** Runs `handle` inside a server span for the request; `handle` gets the span's context. */
  serverRequest<T>(request: ServerRequestInfo, handle: (trace: TraceContext | undefined) => Promise<T>): Promise<T>;
  startScript(script: ScriptStart, parent: TraceContext | undefined): ScriptTrace;
  /** Runs `send` inside a client span for the call; `send` gets the `_meta` that carries the span on. */
  upstreamCall<T extends { readonly isError?: boolean }>(
    call: UpstreamCallInfo,
    parent: TraceContext | undefined,
    send: (meta: TraceMeta | undefined) => Promise<T>,
  ): Promise<T>;
  /**
   * Runs `send` inside an HTTP client span (the standard HTTP semantic conventions); `send` gets the
   * `traceparent` headers that carry the span on. Its status code marks the span: 4xx and 5xx are errors.
   */
  httpRequest<T extends { readonly status: number }>(
    request: HttpRequestInfo,
    parent: TraceContext | undefined,
    send: (headers: Readonly<Record<string, string>>) => Promise<T>,
  ): Promise<T>;
  /**
   * The pool spawned a script process: `warm`, started ahead for a run to come, or not, for a run
   * that found the pool empty. `ready` settles once it can take a script (or could not start).
   */
  childSpawned(warm: boolean, ready: Promise<void>): void;
  /** The pool holds `idle` children started ahead and not yet taken by a run; said whenever that changes. */
  poolSize(idle: number): void;
  /** Exports what is still buffered and stops; the last script's spans leave before the process does. */
  shutdown(): Promise<void>;
}

const NO_SCRIPT_TRACE: ScriptTrace = { context: undefined, countCall: () => {}, end: () => {} };

export const TELEMETRY_OFF: Telemetry = {
  on: false,
  serverRequest: (_request, handle) => handle(undefined),
  startScript: () => NO_SCRIPT_TRACE,
  upstreamCall: (_call, _parent, send) => send(undefined),
  httpRequest: (_request, _parent, send) => send({}),
  childSpawned: () => {},
  poolSize: () => {},
  shutdown: async () => {},
};

let active: Telemetry = TELEMETRY_OFF;

/**
 * The telemetry every session, script and upstream call reports to: one per process, as the
 * log is, set once at start (start-telemetry.ts). Spans' parents still travel explicitly.
 */
export function activeTelemetry(): Telemetry {
  return active;
}

export function setActiveTelemetry(telemetry: Telemetry): void {
  active = telemetry;
}
