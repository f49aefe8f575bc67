/**
 * The SDK side in-process, against the real OTLP receiver: what a refused call and a call that
 * failed after sending look like, which the e2e run (all calls reaching the upstream) does not show.
 */
import { describe, expect, it } from 'vitest';
import { ToolRefusedError, UpstreamLostError } from '../../src/support/errors.js';
import { createOtelTelemetry } from '../../src/telemetry/otel-telemetry.js';
import { receiverPerTest } from '../support/otlp-receiver.js';

const receiver = receiverPerTest();

describe('spans of calls that did not answer', () => {
  it('a refused call is an error span with the refusal as an event and its code as error.type; a lost one has its own code', async () => {
    const telemetry = createOtelTelemetry({
      version: '0.0.0',
      scriptCode: false,
      metricIntervalMs: 60_000,
      exporters: { traces: true, metrics: false },
      log: (line) => {
        throw new Error(`unexpected log line: ${line}`);
      },
    });
    const script = telemetry.startScript({ id: 'abc123-1', code: 'return 1' }, undefined);
    const refused = telemetry.upstreamCall({ scriptName: 'gh__merge', tool: 'merge', upstream: 'gh' }, script.context, () =>
      Promise.reject(new ToolRefusedError('TOOL_DENIED', 'gh__merge', 'the config does not allow it')),
    );
    script.countCall(refused);
    await expect(refused).rejects.toThrow('TOOL_DENIED');
    const lost = telemetry.upstreamCall({ scriptName: 'gh__list', tool: 'list', upstream: 'gh' }, script.context, () =>
      Promise.reject(new UpstreamLostError('gh', 'gh__list', 'exited')),
    );
    script.countCall(lost);
    await expect(lost).rejects.toThrow();
    script.end({ status: 'failed' });
    await telemetry.shutdown();

    const byName = new Map(receiver().spans.map((span) => [span.name, span]));
    const scriptSpan = byName.get('code_execution script')!;
    expect(scriptSpan.attributes).toMatchObject({
      'codemode.script.status': 'failed',
      'error.type': 'failed',
      'codemode.script.calls.refused': 1,
      'codemode.script.calls.failed': 1,
      'codemode.script.calls.answered': 0,
    });
    expect(byName.get('tools/call merge')).toMatchObject({
      parentSpanId: scriptSpan.spanId,
      statusCode: 2,
      events: expect.arrayContaining(['codemode.call.refused']),
      attributes: { 'error.type': 'TOOL_DENIED', 'codemode.call.outcome': 'refused', 'codemode.tool.script_name': 'gh__merge' },
    });
    expect(byName.get('tools/call list')).toMatchObject({
      statusCode: 2,
      attributes: { 'error.type': 'UPSTREAM_LOST', 'codemode.call.outcome': 'failed' },
    });
    expect(byName.get('tools/call list')!.events).not.toContain('codemode.call.refused');
  });
});
