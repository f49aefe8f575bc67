/**
 * What a script's fetch leaves behind, in-process against the real OTLP receiver and a real audit
 * log: an HTTP client span per request (the stable HTTP semantic conventions, a child of the
 * script's span, its traceparent sent on), the duration metric, and one audit line per fetch that
 * names method, origin and path and never a header's value or a body.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Fetcher } from '../../src/fetch/fetcher.js';
import { AuditLog, setActiveAuditLog } from '../../src/telemetry/audit-log.js';
import { createOtelTelemetry } from '../../src/telemetry/otel-telemetry.js';
import { TELEMETRY_OFF, setActiveTelemetry } from '../../src/telemetry/telemetry.js';
import { closeTargets, originRule, startTarget } from '../support/fetch-target.js';
import { receiverPerTest } from '../support/otlp-receiver.js';
import { makeTempDir } from '../support/temp-dirs.js';

const TOKEN = 'tok_audit_0123456789';
const receiver = receiverPerTest();

afterEach(async () => {
  setActiveTelemetry(TELEMETRY_OFF);
  setActiveAuditLog(undefined);
  await closeTargets();
});

describe('the records of a fetch', () => {
  it('a client span per request with the HTTP conventions, 4xx as its error, a redirect as a resend; one audit line per fetch', async () => {
    const api = await startTarget((request, response) => {
      if (request.path.startsWith('/moved')) {
        response.statusCode = 302;
        response.setHeader('location', '/here?q=2');
        return void response.end();
      }
      response.statusCode = request.path.startsWith('/missing') ? 404 : 200;
      response.end(JSON.stringify({ traceparent: request.headers.traceparent ?? null }));
    });
    const telemetry = createOtelTelemetry({
      version: '0.0.0',
      scriptCode: false,
      metricIntervalMs: 60_000,
      exporters: { traces: true, metrics: true },
      log: (line) => {
        throw new Error(`unexpected log line: ${line}`);
      },
    });
    setActiveTelemetry(telemetry);
    const auditPath = join(makeTempDir('fetch-audit'), 'audit.jsonl');
    const audit = new AuditLog(auditPath, false, () => {});
    setActiveAuditLog(audit);

    const fetcher = new Fetcher({
      rules: [originRule(api.origin, { headers: { Authorization: `Bearer ${TOKEN}` }, secrets: [TOKEN] })],
      maxBytes: 1024 * 1024,
      timeoutMs: 30_000,
      log: () => {},
    });
    const script = telemetry.startScript({ id: 'abc-1', code: 'return 1' }, undefined);
    const party = { principal: 'alice', session: 's1', script: 'abc-1', ...(script.context ? { trace: script.context } : {}) };
    const signal = new AbortController().signal;
    const first = await fetcher.fetch(
      { url: `${api.origin}/moved?secret=1`, method: 'GET', headers: [], redirect: 'follow' },
      party,
      signal,
    );
    await fetcher.fetch({ url: `${api.origin}/missing`, method: 'GET', headers: [], redirect: 'follow' }, party, signal);
    await fetcher
      .fetch({ url: 'https://elsewhere.example/', method: 'GET', headers: [], redirect: 'follow' }, party, signal)
      .catch(() => {});
    script.end({ status: 'finished' });
    await telemetry.shutdown();
    audit.close();

    const scriptSpan = receiver().spans.find((span) => span.name === 'code_execution script')!;
    const requests = receiver().spans.filter((span) => span.name === 'GET');
    expect(requests).toHaveLength(3);
    const [here, missing, moved] = requests.sort(
      (a, b) => String(a.attributes['url.full']).localeCompare(String(b.attributes['url.full'])) || 0,
    );
    expect(here).toMatchObject({
      kind: 3,
      parentSpanId: scriptSpan.spanId,
      statusCode: 0,
      attributes: {
        'http.request.method': 'GET',
        'server.address': '127.0.0.1',
        'server.port': api.port,
        'url.full': `${api.origin}/here`,
        'http.response.status_code': 200,
        'http.request.resend_count': 1,
      },
    });
    expect(moved!.attributes).toMatchObject({ 'url.full': `${api.origin}/moved`, 'http.response.status_code': 302 });
    expect(moved!.attributes).not.toHaveProperty('http.request.resend_count');
    expect(missing).toMatchObject({ statusCode: 2, attributes: { 'http.response.status_code': 404, 'error.type': '404' } });
    // The span's context went with the request, as the conventions' propagation does.
    expect(JSON.parse(first.body.toString()).traceparent).toMatch(new RegExp(`^00-${scriptSpan.traceId}-${here!.spanId}-01$`));
    expect(receiver().metrics.get('http.client.request.duration')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ 'http.request.method': 'GET', 'http.response.status_code': 404, 'error.type': '404' }),
      ]),
    );

    const lines = readFileSync(auditPath, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({
        principal: 'alice',
        session: 's1',
        script: 'abc-1',
        fetch: { method: 'GET', origin: api.origin, path: '/moved' },
        status: 200,
        bytes: first.body.length,
        redirects: 1,
        outcome: 'answered',
      }),
      expect.objectContaining({
        fetch: { method: 'GET', origin: api.origin, path: '/missing' },
        status: 404,
        outcome: 'answered',
      }),
      expect.objectContaining({
        fetch: { method: 'GET', origin: 'https://elsewhere.example', path: '/' },
        outcome: 'refused',
        error: 'FETCH_ORIGIN',
      }),
    ]);
    const written = readFileSync(auditPath, 'utf8');
    expect(written).not.toContain(TOKEN);
    expect(written).not.toContain('secret=1');
  });
});
