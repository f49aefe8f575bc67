import type { Progress } from '@modelcontextprotocol/client';
import { describe, expect, test } from 'vitest';
import { UpstreamHub } from '../../src/upstream/hub.js';
import type { CallOrigin } from '../../src/upstream/routing/call-origins.js';
import type { RelayedRequest, RequestRelay } from '../../src/upstream/routing/relay.js';
import { recorderServer } from '../fixtures/upstreams/recorder-server.mjs';
import { inMemorySpec, inMemoryUpstreams } from './in-memory.js';
import { fixture, hubPerTest, textOf, until } from './specs.js';

const scratch = hubPerTest();

/**
 * A hub of recorder.mjs's servers named `names`, served in this process: relaying and routing are
 * the hub's work. The entries each server records go to `record`. Progress keeps a real process
 * (its regression was about what arrives in one read of a pipe).
 */
function recorders(names: string[], record: (entry: Record<string, unknown>) => void = () => {}): UpstreamHub {
  return new UpstreamHub(
    names.map((name) => inMemorySpec(name)),
    { log: () => {}, connect: inMemoryUpstreams(() => recorderServer(record)).connect },
  );
}

/** A session as the hub sees it, answering with `relay` and keeping the logs it is sent. */
function origin(label: string, relay: RequestRelay, accepts = true): CallOrigin & { logs: unknown[] } {
  const logs: unknown[] = [];
  return {
    label,
    relay,
    accepts: () => accepts,
    log: (server, params) => void logs.push({ server, level: params.level, data: params.data }),
    logs,
  };
}

const refuseAll: RequestRelay = async () => {
  throw new Error('this session should not be asked');
};

describe('passing MCP through during a call', () => {
  test('an abort sends notifications/cancelled upstream and the call rejects with the abort reason', async () => {
    const recorded: Record<string, unknown>[] = [];
    scratch.hub = recorders(['rec'], (entry) => recorded.push(entry));
    await scratch.hub.start();
    const controller = new AbortController();
    const call = scratch.hub.callTool('hang', {}, controller.signal);
    await until(() => recorded.some((entry) => entry.event === 'call' && entry.tool === 'hang'));
    const reason = new Error('the script was stopped');
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    await until(() => recorded.some((entry) => entry.event === 'cancelled'));
    expect(recorded.find((entry) => entry.event === 'cancelled')).toEqual({
      event: 'cancelled',
      tool: 'hang',
      reason: 'Error: the script was stopped',
    });
    // The upstream is still there for the next call.
    expect(textOf(await scratch.hub.callTool('echo', { text: 'after' }))).toBe('after');
  });

  // Regression: the SDK's own onprogress lost the progress that arrived in the same read as the response.
  test('progress for a call reaches that call, all of it, and upstream logging reaches the session that made it', async () => {
    scratch.hub = new UpstreamHub([fixture('rec', 'recorder.mjs')], { log: () => {} });
    await scratch.hub.start();
    const caller = origin('A', refuseAll);
    const logs = caller.logs;
    const progress: Progress[] = [];
    const result = await scratch.hub.callTool('progress', { steps: 3 }, undefined, {
      onProgress: (update) => progress.push(update),
      origin: caller,
    });
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
    scratch.hub = recorders(['rec']);
    await scratch.hub.start();
    const asked: Array<{ server: string; request: RelayedRequest }> = [];
    scratch.hub.setFallbackOrigin(
      origin('the client', async (server, request) => {
        asked.push({ server, request });
        return { action: 'accept', content: { name: 'Ada' } };
      }),
    );
    const result = await scratch.hub.callTool('ask', {});
    expect(JSON.parse(textOf(result))).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(asked).toEqual([
      {
        server: 'rec',
        request: expect.objectContaining({
          method: 'elicitation/create',
          params: expect.objectContaining({ message: 'Your name?' }),
        }),
      },
    ]);
  });

  test('roots are relayed too', async () => {
    scratch.hub = recorders(['rec']);
    await scratch.hub.start();
    scratch.hub.setFallbackOrigin(
      origin('the client', async (_server, request) => {
        expect(request.method).toBe('roots/list');
        return { roots: [{ uri: 'file:///work', name: 'work' }] };
      }),
    );
    expect(JSON.parse(textOf(await scratch.hub.callTool('roots', {})))).toEqual({
      roots: [{ uri: 'file:///work', name: 'work' }],
    });
  });

  test('with no session to ask (no call running, no fallback), the upstream gets a JSON-RPC error that says why', async () => {
    scratch.hub = recorders(['rec']);
    await scratch.hub.start();
    const result = await scratch.hub.callTool('ask', {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(
      `codemode-mcp cannot relay elicitation/create from upstream "rec": no script's call to it is running`,
    );
  });
});

describe('routing what an upstream asks to the session whose call it serves', () => {
  const answer =
    (name: string): RequestRelay =>
    async () => ({ action: 'accept', content: { name } });

  test("a request goes to the one session with a call running on that upstream, not to another session's", async () => {
    scratch.hub = recorders(['one', 'two']);
    await scratch.hub.start();
    const a = origin('A', answer('from A'));
    const b = origin('B', refuseAll);
    const controller = new AbortController();
    // B has a call running too, on the other upstream.
    const bCall = scratch.hub.callTool('two__hang', {}, controller.signal, { origin: b }).catch(() => 'aborted');
    const result = await scratch.hub.callTool('one__ask', {}, undefined, { origin: a });
    expect(JSON.parse(textOf(result))).toEqual({ action: 'accept', content: { name: 'from A' } });
    controller.abort(new Error('done'));
    expect(await bCall).toBe('aborted');
  });

  test('with calls of two sessions running on the upstream, the one whose client can answer gets it', async () => {
    scratch.hub = recorders(['rec']);
    await scratch.hub.start();
    const a = origin('A', refuseAll, false);
    const b = origin('B', answer('from B'));
    const controller = new AbortController();
    const aCall = scratch.hub.callTool('hang', {}, controller.signal, { origin: a }).catch(() => 'aborted');
    const result = await scratch.hub.callTool('ask', {}, undefined, { origin: b });
    expect(JSON.parse(textOf(result))).toEqual({ action: 'accept', content: { name: 'from B' } });
    controller.abort(new Error('done'));
    expect(await aCall).toBe('aborted');
  });

  test('with calls of two sessions that could both answer, the request is refused as ambiguous, naming both', async () => {
    scratch.hub = recorders(['rec']);
    await scratch.hub.start();
    const a = origin('session A', refuseAll);
    const b = origin('session B', refuseAll);
    const controller = new AbortController();
    const aCall = scratch.hub.callTool('hang', {}, controller.signal, { origin: a }).catch(() => 'aborted');
    const result = await scratch.hub.callTool('ask', {}, undefined, { origin: b });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(
      'calls from 2 sessions (session A, session B) are running on it, and MCP does not say which call asked',
    );
    controller.abort(new Error('done'));
    expect(await aCall).toBe('aborted');
  });

  // The bug: a session's request was taken for any of its calls, a call made after it came
  // included, or on another upstream (conformance's tools-call-* after server-stateless).
  test("within a session, a request names as its candidates the askers with calls out on that upstream when it came, no other's", async () => {
    scratch.hub = recorders(['one', 'two']);
    await scratch.hub.start();
    const candidates: Array<readonly string[] | undefined> = [];
    const a = origin('A', async (_server, _request, options) => {
      candidates.push(options.candidates);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    const controller = new AbortController();
    const held = [
      scratch.hub.callTool('one__hang', {}, controller.signal, { origin: a, asker: 's-1' }).catch(() => 'aborted'),
      scratch.hub.callTool('two__hang', {}, controller.signal, { origin: a, asker: 's-2' }).catch(() => 'aborted'),
    ];
    await scratch.hub.callTool('one__ask', {}, undefined, { origin: a, asker: 's-3' });
    controller.abort(new Error('done'));
    expect(await Promise.all(held)).toEqual(['aborted', 'aborted']);
    await scratch.hub.callTool('one__ask', {}, undefined, { origin: a, asker: 's-4' });
    expect(candidates.map((names) => [...(names ?? [])].sort())).toEqual([['s-1', 's-3'], ['s-4']]);
  });

  test('a log message goes to the session with a call running, and to no other', async () => {
    scratch.hub = recorders(['one', 'two']);
    await scratch.hub.start();
    const a = origin('A', refuseAll);
    const b = origin('B', refuseAll);
    scratch.hub.setFallbackOrigin(undefined);
    const controller = new AbortController();
    const bCall = scratch.hub.callTool('two__hang', {}, controller.signal, { origin: b }).catch(() => 'aborted');
    await scratch.hub.callTool('one__progress', { steps: 2 }, undefined, { origin: a });
    await until(() => a.logs.length > 0);
    controller.abort(new Error('done'));
    await bCall;
    expect(a.logs).toEqual([{ server: 'one', level: 'info', data: { steps: 2 } }]);
    expect(b.logs).toEqual([]);
  });
});
