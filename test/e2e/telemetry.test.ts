/**
 * Observability as a client and a collector see it: with OTEL_EXPORTER_OTLP_ENDPOINT set, a
 * script is one trace under the client's request (its `_meta.traceparent` continued), each of
 * its calls a client span beneath it whose traceparent reaches the upstream; metrics flow; the
 * audit log has a line per call. All of it from the server serving in this process (its
 * OTEL_ variables set for the test, as a process would find them) to a real OTLP receiver; the
 * script children and upstreams are real processes. (SIGUSR2's reopening of the audit log is the
 * process's: command-signals.test.ts; a log file that stops the start, logs.test.ts.)
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { connectHttp } from '../support/http-server.js';
import { startInProcessHttp } from '../support/in-process-http.js';
import { runInProcess } from '../support/in-process-command.js';
import { startInProcess } from '../support/in-process-server.js';
import { fixturePath, textOf, writeConfig } from '../support/mcp-client.js';
import { RECORDER_UPSTREAM } from '../support/recorder-server.js';
import { startOtlpReceiver, type MetricPoint, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { recorderConfig } from '../support/recorder.js';
import { freePort } from '../support/ports.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { until } from '../support/waiting.js';
import { readRecord, remotePerTest } from '../upstream/specs.js';

const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN = 'b7ad6b7169203331';

/** Three calls to the recorder, the third with arguments its schema refuses: a tool error. */
const THREE_CALLS = `
const one = await tools.echo({ text: "one" });
const two = await tools.echo({ text: "two" });
let third;
// @ts-expect-error: a number where the tool takes text, so that this call fails upstream (the type check would refuse the script)
try { third = await tools.echo({ text: 3 }); } catch (error) { third = error.name; }
return { one, two, third };`;

const remote = remotePerTest();
let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await receiver?.close();
  receiver = undefined;
});

/** Sets these variables for the test, where the server serving in this process reads them (as a process reads its own at start). */
function withEnv(variables: Record<string, string>): void {
  for (const [name, value] of Object.entries(variables)) vi.stubEnv(name, value);
}

function only(spans: readonly ReceivedSpan[], name: string): ReceivedSpan {
  const named = spans.filter((span) => span.name === name);
  expect(named, `spans named ${name} among ${spans.map((span) => span.name).join(', ')}`).toHaveLength(1);
  return named[0]!;
}

function readAudit(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('telemetry over OTLP/HTTP', () => {
  test("a script with three calls, one failing, is one trace under the client's request, and the audit log has each call", async () => {
    receiver = await startOtlpReceiver();
    const { config, recordFile } = recorderConfig('otel');
    const audit = join(makeTempDir('otel-audit'), 'audit.jsonl');
    withEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'codemode-e2e' });
    const server = await startInProcess(['--config', config, '--pool', '0', '--audit-log', audit]);
    const result = await server.client.callTool({
      name: 'code_execution',
      arguments: { code: THREE_CALLS },
      _meta: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` },
    });
    expect(result.isError, textOf(result)).toBe(false);
    // The close exports what is buffered before the process exits.
    expect(await server.close()).toEqual([]);

    // The client's trace holds the run and what it did; the client's other requests (initialize, tools/list) are traces of their own.
    const spans = receiver.spans.filter((span) => span.traceId === CLIENT_TRACE);
    expect(spans.map((span) => span.name).sort()).toEqual([
      'code_execution script',
      'tools/call code_execution',
      'tools/call echo',
      'tools/call echo',
      'tools/call echo',
    ]);
    const request = only(spans, 'tools/call code_execution');
    expect(request).toMatchObject({
      parentSpanId: CLIENT_SPAN,
      kind: 2,
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'code_execution',
        'gen_ai.operation.name': 'execute_tool',
        'jsonrpc.request.id': expect.any(String),
      },
      resource: { 'service.name': 'codemode-e2e', 'service.version': expect.any(String) },
    });
    const script = only(spans, 'code_execution script');
    expect(script).toMatchObject({
      parentSpanId: request.spanId,
      kind: 1,
      attributes: {
        'codemode.script.status': 'finished',
        'codemode.script.calls.answered': 2,
        'codemode.script.calls.tool_error': 1,
        'codemode.script.calls.refused': 0,
        'codemode.script.calls.failed': 0,
        'codemode.script.code.size': Buffer.byteLength(THREE_CALLS),
        'codemode.script.code.sha256': sha256(THREE_CALLS),
        'codemode.script.value.size': expect.any(Number),
      },
    });
    expect(script.attributes).not.toHaveProperty('codemode.script.code');
    const calls = spans.filter((span) => span.name === 'tools/call echo');
    expect(calls).toHaveLength(3);
    for (const call of calls) {
      expect(call).toMatchObject({
        parentSpanId: script.spanId,
        kind: 3,
        attributes: {
          'mcp.method.name': 'tools/call',
          'gen_ai.tool.name': 'echo',
          'gen_ai.operation.name': 'execute_tool',
          'codemode.upstream.name': 'recorder',
        },
      });
    }
    const failed = calls.filter((call) => call.attributes['error.type'] === 'tool_error');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.statusCode).toBe(2);

    // Each call's own span reached the upstream as its parent, in the request's _meta (the
    // recorder records the calls its handler ran: not the third, which its schema refused).
    const sent = readRecord(recordFile)
      .filter((entry) => entry.event === 'call')
      .map((entry) => entry.traceparent);
    const answered = calls.filter((call) => call.attributes['error.type'] === undefined);
    expect(new Set(sent)).toEqual(new Set(answered.map((call) => `00-${CLIENT_TRACE}-${call.spanId}-01`)));

    expect([...receiver.metrics.keys()]).toEqual(
      expect.arrayContaining([
        'mcp.server.operation.duration',
        'mcp.client.operation.duration',
        'codemode.scripts.started',
        'codemode.scripts.ended',
        'codemode.calls',
      ]),
    );
    expect(receiver.metrics.get('codemode.scripts.ended')).toContainEqual({ 'codemode.script.status': 'finished' });
    // --pool 0: the run's own child, started for it, and none waiting in the pool.
    expect(receiver.points.get('codemode.pool.children.spawned')).toEqual([
      { attributes: { 'codemode.child.warm': false }, value: 1 },
    ]);
    expect(receiver.points.get('codemode.pool.spawn.duration')).toEqual([
      { attributes: { 'codemode.child.warm': false }, value: 1 },
    ]);
    expect(receiver.points.get('codemode.pool.size')).toEqual([{ attributes: {}, value: 0 }]);
    expect(receiver.metrics.get('codemode.calls')).toEqual(
      expect.arrayContaining([
        { 'codemode.upstream.name': 'recorder', 'codemode.call.outcome': 'answered' },
        { 'codemode.upstream.name': 'recorder', 'codemode.call.outcome': 'tool_error' },
      ]),
    );

    expect(statSync(audit).mode & 0o777).toBe(0o600);
    const lines = readAudit(audit);
    expect(lines).toHaveLength(3);
    const scriptId = script.attributes['codemode.script.id'];
    const sentArgs = [{ text: 'one' }, { text: 'two' }, { text: 3 }];
    for (const [line, args] of lines.map((line, i) => [line, sentArgs[i]!] as const)) {
      expect(line).toEqual({
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        principal: 'local',
        session: 'the client',
        script: scriptId,
        upstream: 'recorder',
        tool: 'echo',
        args: { bytes: JSON.stringify(args).length, sha256: sha256(JSON.stringify(args)) },
        outcome: args.text === 3 ? 'tool_error' : 'answered',
        durationMs: expect.any(Number),
      });
    }
  });

  test('the pool reports the children it spawned ahead, their spawn time and how many wait in it', async () => {
    receiver = await startOtlpReceiver();
    const { config } = recorderConfig('otel-pool');
    withEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_METRIC_EXPORT_INTERVAL: '200' });
    const server = await startInProcess(['--config', config, '--pool', '2']);
    const warm = { 'codemode.child.warm': true };
    const last = (name: string): MetricPoint | undefined => receiver!.points.get(name)?.at(-1);
    // Metrics are exported every 200 ms: the pool, once filled and its children ready, is seen so.
    await until(
      'an export that sees the pool full of ready children',
      () => last('codemode.pool.size')?.value === 2 && last('codemode.pool.spawn.duration')?.value === 2,
      () => JSON.stringify(Object.fromEntries(receiver!.points)),
    );
    expect(last('codemode.pool.children.spawned')).toEqual({ attributes: warm, value: 2 });
    expect(last('codemode.pool.spawn.duration')).toEqual({ attributes: warm, value: 2 });
    expect((await server.run({ code: 'return 1' })).isError).toBe(false);
    expect(await server.close()).toEqual([]);
    // The run took a pooled child; none was started for it.
    expect(receiver.metrics.get('codemode.pool.children.spawned')).not.toContainEqual({ 'codemode.child.warm': false });
    expect(last('codemode.pool.size')).toEqual({ attributes: {}, value: 0 });
  });

  test('off by default: no traceparent is sent upstream and nothing is said of OpenTelemetry', async () => {
    const { config, recordFile } = recorderConfig('otel-off');
    const server = await startInProcess(['--config', config, '--pool', '0']);
    const result = await server.run({ code: 'return await tools.echo({ text: "one" })' });
    expect(result.isError, textOf(result)).toBe(false);
    expect(await server.close()).toEqual([]);
    const calls = readRecord(recordFile).filter((entry) => entry.event === 'call');
    expect(calls).toHaveLength(1);
    expect(calls[0]).not.toHaveProperty('traceparent');
    expect(server.stderr()).not.toContain('OpenTelemetry');
  });

  test("--otel-script-code puts the script's code on its span", async () => {
    receiver = await startOtlpReceiver();
    const { config } = recorderConfig('otel-code');
    withEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.endpoint}/v1/traces`, OTEL_METRICS_EXPORTER: 'none' });
    const server = await startInProcess(['--config', config, '--pool', '0', '--otel-script-code']);
    const code = 'return 6 * 7';
    expect((await server.run({ code })).isError).toBe(false);
    expect(await server.close()).toEqual([]);
    const script = only(receiver.spans, 'code_execution script');
    expect(script.attributes).toMatchObject({ 'codemode.script.code': code, 'codemode.script.value.size': 2 });
    // With no client traceparent the request's span starts the trace.
    expect(only(receiver.spans, 'tools/call code_execution').parentSpanId).toBe('');
  });

  test('with --tokenize, the span records the code as the client sent it, its tokens not put back', async () => {
    receiver = await startOtlpReceiver();
    const { config } = recorderConfig('otel-tokens');
    withEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.endpoint}/v1/traces`, OTEL_METRICS_EXPORTER: 'none' });
    const server = await startInProcess(['--config', config, '--pool', '0', '--otel-script-code', '--tokenize']);
    const read = await server.run({ code: 'return (await tools.echo({ text: "ada@example.com" })).content[0].text' });
    expect(textOf(read)).toContain('value: "[EMAIL_1]"');
    const code = 'return (await tools.echo({ text: "[EMAIL_1]" })).content[0].text === "ada@example.com"';
    expect(textOf(await server.run({ code }))).toContain('value: true');
    expect(await server.close()).toEqual([]);
    const codes = receiver.spans
      .filter((span) => span.name === 'code_execution script')
      .map((span) => span.attributes['codemode.script.code']);
    // Restored, the span would hold the address where the token stands.
    expect(codes).toContain(code);
  });
});

describe('the audit log', () => {
  test('has the calls of a script run by hand with `run`, as session "run"', async () => {
    const { config } = recorderConfig('audit-run');
    const audit = join(makeTempDir('audit-run'), 'audit.jsonl');
    const { exitCode, left } = await runInProcess(['run', '-', '--config', config, '--audit-log', audit], {
      input: 'return await tools.echo({ text: "hand" })',
    });
    expect(exitCode).toBe(0);
    expect(left).toEqual([]);
    expect(readAudit(audit)).toEqual([
      expect.objectContaining({ principal: 'local', session: 'run', upstream: 'recorder', tool: 'echo', outcome: 'answered' }),
    ]);
  });
});

describe('over HTTP', () => {
  test("each session's request spans carry its id, and the audit log names the session and its principal", async () => {
    receiver = await startOtlpReceiver();
    const audit = join(makeTempDir('otel-http'), 'audit.jsonl');
    withEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_METRICS_EXPORTER: 'none' });
    const server = await startInProcessHttp(['--pool', '0', '--audit-log', audit, ...RECORDER_UPSTREAM]);
    const session = await connectHttp(server.url);
    const sessionId = session.transport.sessionId!;
    try {
      expect((await session.run({ code: 'return await tools.echo({ text: "web" })' })).isError).toBe(false);
    } finally {
      await session.close();
    }
    // The shutdown exports what is buffered before the end.
    expect(await server.stop()).toEqual({ code: 0, left: [] });
    expect(only(receiver.spans, 'tools/call code_execution').attributes).toMatchObject({ 'mcp.session.id': sessionId });
    expect(only(receiver.spans, 'tools/call echo').parentSpanId).toBe(only(receiver.spans, 'code_execution script').spanId);
    expect(readAudit(audit)).toEqual([
      expect.objectContaining({
        session: `session ${sessionId}`,
        // No tokens file: every caller is the one principal.
        principal: 'shared',
        tool: 'echo',
        outcome: 'answered',
      }),
    ]);
  });
});

describe("the client's other requests", () => {
  test('each is a server span named per the conventions, continuing its traceparent, an error answer marked with its code', async () => {
    receiver = await startOtlpReceiver();
    withEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_METRICS_EXPORTER: 'none' });
    const server = await startInProcess([
      '--pool',
      '0',
      '--',
      process.execPath,
      fixturePath('upstreams/conformance-everything.mjs'),
    ]);
    const traceparent = `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`;
    await server.client.listTools();
    await server.client.readResource({ uri: 'test://static-text', _meta: { traceparent } });
    await server.client.getPrompt({ name: 'test_simple_prompt', _meta: { traceparent } });
    await expect(server.client.readResource({ uri: 'test://no-such-resource' })).rejects.toThrow();
    expect(await server.close()).toEqual([]);

    const serverKind = 2;
    expect(only(receiver.spans, 'initialize')).toMatchObject({
      kind: serverKind,
      attributes: { 'mcp.method.name': 'initialize' },
    });
    expect(receiver.spans.filter((span) => span.name === 'tools/list')[0]).toMatchObject({
      kind: serverKind,
      attributes: { 'mcp.method.name': 'tools/list', 'jsonrpc.request.id': expect.any(String) },
    });
    const reads = receiver.spans.filter((span) => span.name === 'resources/read');
    expect(reads).toHaveLength(2);
    expect(reads.find((span) => span.attributes['mcp.resource.uri'] === 'test://static-text')).toMatchObject({
      traceId: CLIENT_TRACE,
      parentSpanId: CLIENT_SPAN,
      kind: serverKind,
      statusCode: 0,
      attributes: { 'mcp.method.name': 'resources/read' },
    });
    const failed = reads.find((span) => span.attributes['mcp.resource.uri'] === 'test://no-such-resource');
    expect(failed).toMatchObject({ statusCode: 2, attributes: { 'error.type': expect.stringMatching(/^-32\d{3}$/) } });
    expect(failed!.attributes['rpc.response.status_code']).toBe(failed!.attributes['error.type']);
    expect(only(receiver.spans, 'prompts/get test_simple_prompt')).toMatchObject({
      traceId: CLIENT_TRACE,
      parentSpanId: CLIENT_SPAN,
      kind: serverKind,
      attributes: { 'mcp.method.name': 'prompts/get', 'gen_ai.prompt.name': 'test_simple_prompt' },
    });
  });
});

describe('an upstream over Streamable HTTP', () => {
  test("gets each call's trace context as the traceparent and tracestate headers too, the same as in its _meta", async () => {
    receiver = await startOtlpReceiver();
    const recordFile = join(makeTempDir('otel-remote'), 'record.jsonl');
    const [, port] = await remote.serve(
      [fixturePath('upstreams/remote-http.mjs')],
      { RECORD_FILE: recordFile },
      /listening on (\d+)/,
    );
    const config = writeConfig({ remote: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } });
    withEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_METRICS_EXPORTER: 'none' });
    const server = await startInProcess(['--config', config, '--pool', '0']);
    const result = await server.client.callTool({
      name: 'code_execution',
      arguments: { code: 'return await tools.hello({})' },
      _meta: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, tracestate: 'client=e2e' },
    });
    expect(result.isError, textOf(result)).toBe(false);
    expect(await server.close()).toEqual([]);
    const call = only(receiver.spans, 'tools/call hello');
    const context = { traceparent: `00-${CLIENT_TRACE}-${call.spanId}-01`, tracestate: 'client=e2e' };
    expect(readRecord(recordFile)).toEqual([{ event: 'call', tool: 'hello', headers: context, meta: context }]);
  });
});

describe('a collector that cannot be reached', () => {
  test('the server serves as ever, says the export failed, and exits 0', async () => {
    const { config } = recorderConfig('otel-down');
    withEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await freePort()}`, OTEL_EXPORTER_OTLP_TIMEOUT: '2000' });
    const server = await startInProcess(['--config', config, '--pool', '0']);
    expect((await server.run({ code: 'return await tools.echo({ text: "one" })' })).isError).toBe(false);
    expect(await server.close()).toEqual([]);
    expect(await server.exited).toEqual({ code: 0 });
    expect(server.stderr()).toMatch(
      /codemode-mcp: OpenTelemetry: exporting the last spans at shutdown failed \(connect ECONNREFUSED [\d.:]+\); they are lost/,
    );
    expect(server.stderr()).toMatch(
      /codemode-mcp: OpenTelemetry: PeriodicExportingMetricReader: metrics export failed .*ECONNREFUSED.*\n/,
    );
    expect(server.stderr()).not.toContain('"stack"');
  });
});
