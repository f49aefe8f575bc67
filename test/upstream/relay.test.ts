import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Progress } from '@modelcontextprotocol/client';
import { describe, expect, test } from 'vitest';
import { UpstreamHub } from '../../src/upstream/hub.js';
import type { RelayedRequest } from '../../src/upstream/relay.js';
import { fixture, hubPerTest, readRecord, textOf, until } from './specs.js';

const scratch = hubPerTest();

describe('passing MCP through during a call', () => {
  test('an abort sends notifications/cancelled upstream and the call rejects with the abort reason', async () => {
    scratch.dir = mkdtempSync(join(tmpdir(), 'codemode-cancel-'));
    const record = join(scratch.dir, 'calls.jsonl');
    scratch.hub = new UpstreamHub([fixture('rec', 'recorder.mjs', { env: { RECORD_FILE: record } })], { log: () => {} });
    await scratch.hub.start();
    const controller = new AbortController();
    const call = scratch.hub.callTool('hang', {}, controller.signal);
    await until(() => readRecord(record).some((entry) => entry.event === 'call' && entry.tool === 'hang'));
    const reason = new Error('the script was stopped');
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    await until(() => readRecord(record).some((entry) => entry.event === 'cancelled'));
    expect(readRecord(record).find((entry) => entry.event === 'cancelled')).toEqual({
      event: 'cancelled',
      tool: 'hang',
      reason: 'Error: the script was stopped',
    });
    // The upstream is still there for the next call.
    expect(textOf(await scratch.hub.callTool('echo', { text: 'after' }))).toBe('after');
  });

  // Regression: the SDK's own onprogress lost the progress that arrived in the same read as the response.
  test('progress for a call reaches that call, all of it, and upstream logging reaches the log hook', async () => {
    scratch.hub = new UpstreamHub([fixture('rec', 'recorder.mjs')], { log: () => {} });
    await scratch.hub.start();
    const logs: unknown[] = [];
    scratch.hub.onUpstreamLog((server, params) => logs.push({ server, level: params.level, data: params.data }));
    const progress: Progress[] = [];
    const result = await scratch.hub.callTool('progress', { steps: 3 }, undefined, { onProgress: (update) => progress.push(update) });
    expect(textOf(result)).toBe('did 3 steps');
    expect(progress.map(({ progress: done, total }) => ({ done, total }))).toEqual([
      { done: 1, total: 3 },
      { done: 2, total: 3 },
      { done: 3, total: 3 },
    ]);
    await until(() => logs.length > 0);
    expect(logs).toEqual([{ server: 'rec', level: 'info', data: { steps: 3 } }]);
  });

  test('an elicitation goes to the relay, named by its upstream, and its answer goes back', async () => {
    scratch.hub = new UpstreamHub([fixture('rec', 'recorder.mjs')], { log: () => {} });
    await scratch.hub.start();
    const asked: Array<{ server: string; request: RelayedRequest }> = [];
    scratch.hub.setRequestRelay(async (server, request) => {
      asked.push({ server, request });
      return { action: 'accept', content: { name: 'Ada' } };
    });
    const result = await scratch.hub.callTool('ask', {});
    expect(JSON.parse(textOf(result))).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(asked).toEqual([
      { server: 'rec', request: expect.objectContaining({ method: 'elicitation/create', params: expect.objectContaining({ message: 'Your name?' }) }) },
    ]);
  });

  test('roots are relayed too', async () => {
    scratch.hub = new UpstreamHub([fixture('rec', 'recorder.mjs')], { log: () => {} });
    await scratch.hub.start();
    scratch.hub.setRequestRelay(async (_server, request) => {
      expect(request.method).toBe('roots/list');
      return { roots: [{ uri: 'file:///work', name: 'work' }] };
    });
    expect(JSON.parse(textOf(await scratch.hub.callTool('roots', {})))).toEqual({ roots: [{ uri: 'file:///work', name: 'work' }] });
  });

  test('with no relay set, the upstream gets a JSON-RPC error that says why', async () => {
    scratch.hub = new UpstreamHub([fixture('rec', 'recorder.mjs')], { log: () => {} });
    await scratch.hub.start();
    const result = await scratch.hub.callTool('ask', {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('codemode-mcp cannot relay elicitation/create from upstream "rec": no client is attached to answer it');
  });
});
