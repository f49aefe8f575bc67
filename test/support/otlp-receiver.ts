/**
 * A tiny OTLP/HTTP receiver: what the OpenTelemetry JS exporters post to `/v1/traces` and
 * `/v1/metrics` in their JSON encoding (the wire format they send by default), decoded into
 * spans and metric names. Listens on a loopback port of its own.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, beforeEach } from 'vitest';

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
interface KeyValue {
  readonly key: string;
  readonly value: AnyValue;
}

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly events: readonly string[];
  readonly resource: Readonly<Record<string, string | number | boolean>>;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly endpoint: string;
  readonly spans: readonly ReceivedSpan[];
  /** The names of the metrics received, each with the attribute sets of its data points. */
  readonly metrics: ReadonlyMap<string, Array<Readonly<Record<string, string | number | boolean>>>>;
  /** The same data points, each with its value: a sum's or gauge's value, a histogram's count. In the order received. */
  readonly points: ReadonlyMap<string, ReadonlyArray<MetricPoint>>;
  close(): Promise<void>;
}

export interface MetricPoint {
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  readonly value: number;
}

interface DataPoint {
  attributes?: KeyValue[];
  asInt?: number | string;
  asDouble?: number;
  count?: number | string;
}

function valueOf(value: AnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.doubleValue !== undefined) return value.doubleValue;
  throw new Error(`an OTLP attribute value of a kind this receiver does not decode: ${JSON.stringify(value)}`);
}

function attributesOf(list: readonly KeyValue[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

interface TracesBody {
  resourceSpans: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans: Array<{
      spans: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: KeyValue[];
        status?: { code?: number };
        events?: Array<{ name: string }>;
      }>;
    }>;
  }>;
}

interface MetricsBody {
  resourceMetrics: Array<{
    scopeMetrics: Array<{
      metrics: Array<{
        name: string;
        sum?: { dataPoints: DataPoint[] };
        histogram?: { dataPoints: DataPoint[] };
        gauge?: { dataPoints: DataPoint[] };
      }>;
    }>;
  }>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metrics = new Map<string, Array<Record<string, string | number | boolean>>>();
  const points = new Map<string, MetricPoint[]>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const type = request.headers['content-type'] ?? '';
      if (request.method !== 'POST' || !type.startsWith('application/json')) {
        response.writeHead(415).end(`this receiver takes OTLP/HTTP JSON posts; got ${request.method} ${type}`);
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
      if (request.url === '/v1/traces') {
        for (const { resource, scopeSpans } of (body as TracesBody).resourceSpans) {
          for (const scope of scopeSpans) {
            for (const span of scope.spans) {
              spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                name: span.name,
                kind: span.kind,
                attributes: attributesOf(span.attributes),
                statusCode: span.status?.code ?? 0,
                events: (span.events ?? []).map((event) => event.name),
                resource: attributesOf(resource?.attributes),
              });
            }
          }
        }
      } else if (request.url === '/v1/metrics') {
        for (const { scopeMetrics } of (body as MetricsBody).resourceMetrics) {
          for (const metric of scopeMetrics.flatMap((scope) => scope.metrics)) {
            const received = (metric.sum ?? metric.histogram ?? metric.gauge)?.dataPoints ?? [];
            metrics.set(metric.name, [
              ...(metrics.get(metric.name) ?? []),
              ...received.map((point) => attributesOf(point.attributes)),
            ]);
            points.set(metric.name, [
              ...(points.get(metric.name) ?? []),
              ...received.map((point) => ({
                attributes: attributesOf(point.attributes),
                value: Number(point.asInt ?? point.asDouble ?? point.count ?? Number.NaN),
              })),
            ]);
          }
        }
      } else {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    points,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * For a test file whose telemetry runs in its own process: a fresh receiver for each test, with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at it and put back after. The returned function gives the
 * running test's receiver.
 */
export function receiverPerTest(): () => OtlpReceiver {
  const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  let receiver: OtlpReceiver | undefined;
  beforeEach(async () => {
    receiver = await startOtlpReceiver();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
  });
  afterEach(async () => {
    if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
    await receiver?.close();
    receiver = undefined;
  });
  return () => {
    if (receiver === undefined) throw new Error('the OTLP receiver is made for each test: read it inside one');
    return receiver;
  };
}
