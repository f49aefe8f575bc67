/**
 * Telemetry over the OpenTelemetry JS SDK: spans batched to an OTLP/HTTP exporter, metrics read
 * periodically to another, both configured by the standard OTEL_* variables. Loaded only when
 * telemetry is on (start-telemetry.ts); its packages by require, as the Redis client is
 * (src/state/redis-store.ts): the server's bundle runs as a vm.Script, where require resolves.
 */
import { createRequire } from 'node:module';
import type * as Api from '@opentelemetry/api';
import type * as Core from '@opentelemetry/core';
import type * as TraceSdk from '@opentelemetry/sdk-trace-base';
import type * as MetricsSdk from '@opentelemetry/sdk-metrics';
import type * as Resources from '@opentelemetry/resources';
import type * as TraceExporter from '@opentelemetry/exporter-trace-otlp-http';
import type * as MetricExporter from '@opentelemetry/exporter-metrics-otlp-http';
import type * as Conventions from '@opentelemetry/semantic-conventions';
import type { Log } from '../support/log.js';
import { callOutcome, describeText, errorType } from './call-outcome.js';
import * as names from './conventions.js';
import type { CallOutcome, ScriptTrace, Telemetry, TraceMeta } from './telemetry.js';

export interface OtelOptions {
  readonly version: string;
  /** Put each script's code on its span (otelScriptCode). */
  readonly scriptCode: boolean;
  /** Which signals are exported (OTEL_TRACES_EXPORTER, OTEL_METRICS_EXPORTER: otlp or none). */
  readonly exporters: { readonly traces: boolean; readonly metrics: boolean };
  /** How often metrics are exported, in ms (OTEL_METRIC_EXPORT_INTERVAL). */
  readonly metricIntervalMs: number;
  /** Where the SDK's own warnings go (an export that failed). */
  readonly log: Log;
}

const SECOND_MS = 1_000;

export function createOtelTelemetry(options: OtelOptions): Telemetry {
  const require = createRequire(import.meta.url);
  const api = require('@opentelemetry/api') as typeof Api;
  const { W3CTraceContextPropagator } = require('@opentelemetry/core') as typeof Core;
  const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof TraceSdk;
  const { MeterProvider, PeriodicExportingMetricReader } = require('@opentelemetry/sdk-metrics') as typeof MetricsSdk;
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } =
    require('@opentelemetry/resources') as typeof Resources;
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof TraceExporter;
  const { OTLPMetricExporter } = require('@opentelemetry/exporter-metrics-otlp-http') as typeof MetricExporter;
  const {
    ATTR_ERROR_TYPE,
    ATTR_SERVICE_NAME,
    ATTR_SERVICE_VERSION,
    ATTR_HTTP_REQUEST_METHOD,
    ATTR_HTTP_REQUEST_RESEND_COUNT,
    ATTR_HTTP_RESPONSE_STATUS_CODE,
    ATTR_SERVER_ADDRESS,
    ATTR_SERVER_PORT,
    ATTR_URL_FULL,
    METRIC_HTTP_CLIENT_REQUEST_DURATION,
  } = require('@opentelemetry/semantic-conventions') as typeof Conventions;
  const { SpanKind, SpanStatusCode, ROOT_CONTEXT, trace, defaultTextMapGetter, defaultTextMapSetter } = api;

  // An export that fails is said once in our log, not lost.
  const warn = (message: string): void => options.log(`codemode-mcp: OpenTelemetry: ${readableMessage(message)}`, 'warn');
  api.diag.setLogger(
    { error: warn, warn, info: () => {}, debug: () => {}, verbose: () => {} },
    { logLevel: api.DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (envDetector) win over our own name.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'codemode-mcp', [ATTR_SERVICE_VERSION]: options.version }))
    .merge(detectResources({ detectors: [envDetector] }));
  const tracerProvider = new BasicTracerProvider({
    resource,
    spanProcessors: options.exporters.traces ? [new BatchSpanProcessor(new OTLPTraceExporter())] : [],
  });
  const meterProvider = new MeterProvider({
    resource,
    readers: options.exporters.metrics
      ? [
          new PeriodicExportingMetricReader({
            exporter: new OTLPMetricExporter(),
            exportIntervalMillis: options.metricIntervalMs,
            exportTimeoutMillis: Math.min(30 * SECOND_MS, options.metricIntervalMs),
          }),
        ]
      : [],
  });
  const tracer = tracerProvider.getTracer('codemode-mcp', options.version);
  const meter = meterProvider.getMeter('codemode-mcp', options.version);
  const propagator = new W3CTraceContextPropagator();
  const seconds = {
    unit: 's',
    advice: { explicitBucketBoundaries: [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300] },
  };
  const serverDuration = meter.createHistogram(names.METRIC_MCP_SERVER_OPERATION_DURATION, {
    ...seconds,
    description: 'Duration of a request a client made to codemode-mcp',
  });
  const clientDuration = meter.createHistogram(names.METRIC_MCP_CLIENT_OPERATION_DURATION, {
    ...seconds,
    description: 'Duration of a tool call codemode-mcp made to an upstream server',
  });
  const httpDuration = meter.createHistogram(METRIC_HTTP_CLIENT_REQUEST_DURATION, {
    ...seconds,
    description: "Duration of an HTTP request a script's fetch() had codemode-mcp make",
  });
  const scriptsStarted = meter.createCounter(names.METRIC_SCRIPTS_STARTED, { description: 'Scripts started' });
  const scriptsEnded = meter.createCounter(names.METRIC_SCRIPTS_ENDED, { description: 'Scripts ended, by status' });
  const scriptsRunning = meter.createUpDownCounter(names.METRIC_SCRIPTS_RUNNING, { description: 'Scripts running' });
  const calls = meter.createCounter(names.METRIC_CALLS, { description: 'Tool calls to upstreams, by upstream and outcome' });
  const childrenSpawned = meter.createCounter(names.METRIC_POOL_SPAWNED, {
    description: 'Script processes spawned, ahead into the pool (warm) or for a run that found it empty',
  });
  const spawnDuration = meter.createHistogram(names.METRIC_POOL_SPAWN_DURATION, {
    ...seconds,
    advice: { explicitBucketBoundaries: [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5] },
    description: 'From spawning a script process until it is ready for a script',
  });
  const poolSize = meter.createGauge(names.METRIC_POOL_SIZE, {
    unit: '{process}',
    description: 'Script processes started ahead and not yet taken by a run',
  });

  /** Marks `span` as the outcome says (a tool error or a failure; a refusal is an event too); returns its error.type. */
  function markEnding(span: Api.Span, ending: { result: unknown } | { error: unknown }): string | undefined {
    let type: string | undefined;
    if ('error' in ending) {
      type = errorType(ending.error);
      const message = ending.error instanceof Error ? ending.error.message : String(ending.error);
      if (callOutcome(ending) === 'refused') span.addEvent('codemode.call.refused', { 'exception.message': message });
      span.recordException(ending.error instanceof Error ? ending.error : message);
      span.setStatus({ code: SpanStatusCode.ERROR, message });
    } else if (isToolError(ending.result)) {
      type = names.ERROR_TYPE_TOOL_ERROR;
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    if (type !== undefined) span.setAttribute(ATTR_ERROR_TYPE, type);
    return type;
  }

  /** Runs `run`, marks and ends the span by how it settled (`settled` first, for its last attributes), and hands its answer on as it came. */
  async function within<T>(
    span: Api.Span,
    run: () => Promise<T>,
    settled: (ending: { result: T } | { error: unknown }, errorType: string | undefined) => void,
  ): Promise<T> {
    try {
      const result = await run();
      settled({ result }, markEnding(span, { result }));
      return result;
    } catch (error) {
      settled({ error }, markEnding(span, { error }));
      throw error;
    } finally {
      span.end();
    }
  }

  return {
    on: true,

    serverRequest(request, handle) {
      const { method, target } = request;
      const meta = request.meta !== null && typeof request.meta === 'object' ? request.meta : {};
      const parent = propagator.extract(ROOT_CONTEXT, meta, defaultTextMapGetter);
      const attributes: Api.Attributes = {
        [names.ATTR_MCP_METHOD_NAME]: method,
        ...(method === 'tools/call' && target !== undefined
          ? { [names.ATTR_GEN_AI_TOOL_NAME]: target, [names.ATTR_GEN_AI_OPERATION_NAME]: names.GEN_AI_OPERATION_EXECUTE_TOOL }
          : {}),
        ...(method === 'prompts/get' && target !== undefined ? { [names.ATTR_GEN_AI_PROMPT_NAME]: target } : {}),
      };
      const span = tracer.startSpan(
        target === undefined ? method : `${method} ${target}`,
        {
          kind: SpanKind.SERVER,
          attributes: {
            ...attributes,
            ...(request.requestId !== undefined ? { [names.ATTR_JSONRPC_REQUEST_ID]: String(request.requestId) } : {}),
            ...(request.sessionId !== undefined ? { [names.ATTR_MCP_SESSION_ID]: request.sessionId } : {}),
            ...(request.resourceUri !== undefined ? { [names.ATTR_MCP_RESOURCE_URI]: request.resourceUri } : {}),
          },
        },
        parent,
      );
      const started = performance.now();
      // A handler's answer need not be a tool result: only an `isError` on one marks the span.
      return within(
        span,
        () => handle(trace.setSpan(parent, span)),
        (ending, type) => {
          // A JSON-RPC error answer (an unknown resource, bad params) is named by its code.
          const code = 'error' in ending ? jsonRpcCode(ending.error) : undefined;
          if (code !== undefined) span.setAttributes({ [names.ATTR_RPC_RESPONSE_STATUS_CODE]: code, [ATTR_ERROR_TYPE]: code });
          const errorType = code ?? type;
          serverDuration.record((performance.now() - started) / SECOND_MS, {
            ...attributes,
            ...(errorType !== undefined ? { [ATTR_ERROR_TYPE]: errorType } : {}),
          });
        },
      );
    },

    startScript(script, parent): ScriptTrace {
      const code = describeText(script.code);
      const span = tracer.startSpan(
        names.SCRIPT_SPAN_NAME,
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            [names.ATTR_SCRIPT_ID]: script.id,
            [names.ATTR_SCRIPT_CODE_SIZE]: code.bytes,
            [names.ATTR_SCRIPT_CODE_SHA256]: code.sha256,
            ...(options.scriptCode ? { [names.ATTR_SCRIPT_CODE]: script.code } : {}),
          },
        },
        parent,
      );
      scriptsStarted.add(1);
      scriptsRunning.add(1);
      const counts: Record<CallOutcome, number> = { answered: 0, tool_error: 0, refused: 0, failed: 0 };
      let ended = false;
      return {
        context: trace.setSpan(parent ?? ROOT_CONTEXT, span),
        countCall(answer) {
          answer.then(
            (result) => void counts[callOutcome({ result })]++,
            (error: unknown) => void counts[callOutcome({ error })]++,
          );
        },
        end(ending) {
          if (ended) return;
          ended = true;
          span.setAttribute(names.ATTR_SCRIPT_STATUS, ending.status);
          for (const [outcome, count] of Object.entries(counts)) {
            span.setAttribute(`${names.ATTR_SCRIPT_CALLS_PREFIX}${outcome}`, count);
          }
          if (ending.valueBytes !== undefined) span.setAttribute(names.ATTR_SCRIPT_VALUE_SIZE, ending.valueBytes);
          if (ending.status !== 'finished') {
            span.setAttribute(ATTR_ERROR_TYPE, ending.status);
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          span.end();
          scriptsEnded.add(1, { [names.ATTR_SCRIPT_STATUS]: ending.status });
          scriptsRunning.add(-1);
        },
      };
    },

    upstreamCall(call, parent, send) {
      const attributes: Api.Attributes = {
        [names.ATTR_MCP_METHOD_NAME]: 'tools/call',
        [names.ATTR_GEN_AI_TOOL_NAME]: call.tool,
        [names.ATTR_GEN_AI_OPERATION_NAME]: names.GEN_AI_OPERATION_EXECUTE_TOOL,
        ...(call.upstream !== undefined ? { [names.ATTR_UPSTREAM]: call.upstream } : {}),
      };
      const span = tracer.startSpan(
        `tools/call ${call.tool}`,
        { kind: SpanKind.CLIENT, attributes: { ...attributes, [names.ATTR_SCRIPT_TOOL_NAME]: call.scriptName } },
        parent,
      );
      const meta: Record<string, string> = {};
      propagator.inject(trace.setSpan(parent ?? ROOT_CONTEXT, span), meta, defaultTextMapSetter);
      const started = performance.now();
      return within(
        span,
        () => send(meta satisfies TraceMeta),
        (ending, type) => {
          const outcome = callOutcome('result' in ending ? { result: { isError: isToolError(ending.result) } } : ending);
          span.setAttribute(names.ATTR_CALL_OUTCOME, outcome);
          clientDuration.record((performance.now() - started) / SECOND_MS, {
            ...attributes,
            ...(type !== undefined ? { [ATTR_ERROR_TYPE]: type } : {}),
          });
          calls.add(1, { [names.ATTR_UPSTREAM]: call.upstream ?? '', [names.ATTR_CALL_OUTCOME]: outcome });
        },
      );
    },

    httpRequest(request, parent, send) {
      const attributes: Api.Attributes = {
        [ATTR_HTTP_REQUEST_METHOD]: request.method,
        [ATTR_SERVER_ADDRESS]: request.serverAddress,
        [ATTR_SERVER_PORT]: request.serverPort,
      };
      const span = tracer.startSpan(
        request.method,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            ...attributes,
            [ATTR_URL_FULL]: request.url,
            ...(request.resendCount > 0 ? { [ATTR_HTTP_REQUEST_RESEND_COUNT]: request.resendCount } : {}),
          },
        },
        parent,
      );
      const headers: Record<string, string> = {};
      propagator.inject(trace.setSpan(parent ?? ROOT_CONTEXT, span), headers, defaultTextMapSetter);
      const started = performance.now();
      return within(
        span,
        () => send(headers),
        (ending, type) => {
          const status = 'result' in ending ? ending.result.status : undefined;
          // The conventions: a 4xx or 5xx answer is the client span's error, named by its code.
          const errorType = status !== undefined && status >= 400 ? String(status) : type;
          if (status !== undefined) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
          if (errorType !== undefined) {
            span.setAttribute(ATTR_ERROR_TYPE, errorType);
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          httpDuration.record((performance.now() - started) / SECOND_MS, {
            ...attributes,
            ...(status !== undefined ? { [ATTR_HTTP_RESPONSE_STATUS_CODE]: status } : {}),
            ...(errorType !== undefined ? { [ATTR_ERROR_TYPE]: errorType } : {}),
          });
        },
      );
    },

    childSpawned(warm, ready) {
      const attributes = { [names.ATTR_CHILD_WARM]: warm };
      childrenSpawned.add(1, attributes);
      const started = performance.now();
      // One that could not start is counted, not timed: its failure is in the log.
      ready.then(
        () => spawnDuration.record((performance.now() - started) / SECOND_MS, attributes),
        () => {},
      );
    },

    poolSize(idle) {
      poolSize.record(idle);
    },

    async shutdown() {
      // A collector that can't be reached costs the spans buffered, not the shutdown: said, and the exit is as ever.
      const settled = await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
      for (const [i, outcome] of settled.entries()) {
        if (outcome.status === 'fulfilled') continue;
        const reason = outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason);
        warn(`exporting the last ${i === 0 ? 'spans' : 'metrics'} at shutdown failed (${reason}); they are lost`);
      }
    },
  };
}

/** The code of an error the SDK answers as a JSON-RPC error (ProtocolError), as a string; undefined for any other. */
function jsonRpcCode(error: unknown): string | undefined {
  const code = error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'number' && Number.isInteger(code) ? String(code) : undefined;
}

/** A tool result with `isError: true`; any other answer is not one. */
function isToolError(result: unknown): boolean {
  return result !== null && typeof result === 'object' && (result as { isError?: unknown }).isError === true;
}

/** The SDK's error handler logs an error as its JSON, stack and all: its message is the line. */
function readableMessage(message: string): string {
  if (!message.startsWith('{')) return message;
  try {
    const parsed = JSON.parse(message) as { message?: unknown };
    return typeof parsed.message === 'string' ? parsed.message : message;
  } catch {
    return message; // not JSON after all: as it came
  }
}
