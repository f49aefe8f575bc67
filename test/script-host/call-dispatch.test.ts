/**
 * A script's calls over an in-memory child (test/support/fake-channel.ts): what each outcome
 * sends back, the timeout and the release of a call's place, the resources API, the record.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ResultTooLargeError, ToolRefusedError } from '../../src/support/errors.js';
import type { ToolCaller } from '../../src/script-host/apis.js';
import { fakeScript, type FakeChannel } from '../support/fake-channel.js';
import { memoryResources } from '../support/scripts.js';

/** Waits until the child has been sent `count` frames of kind `t` (answers come a few turns after the call). */
async function sentAfter(child: FakeChannel, t: 'result' | 'release', count = 1) {
  await vi.waitFor(() => expect(child.sentOf(t).length).toBeGreaterThanOrEqual(count));
  return child.sentOf(t);
}

afterEach(() => {
  vi.useRealTimers();
});

describe("a script's calls", () => {
  it("sends a tool's result as the frame's payload, and counts it answered once the script read it", async () => {
    const { script, child } = fakeScript();
    child.receive({ t: 'call', id: 1, tool: 'echo', args: '{"a":1}' });
    expect(await sentAfter(child, 'result')).toEqual([
      { message: { t: 'result', id: 1, kind: 'ok' }, payload: JSON.stringify({ content: [{ type: 'text', text: '{"a":1}' }] }) },
    ]);
    child.receive({ t: 'end', status: 'finished', read: 1 });
    await script.ended;
    expect(script.takeReturn().calls).toMatchObject({ answered: 1, refused: 0, unseen: [] });
  });

  it('turns a failure after sending into an isError result, and a refusal into a refusal counted as such', async () => {
    const callTool: ToolCaller = async (name, args) => {
      if (args.refuse === true) throw new ToolRefusedError('TOOL_DENIED', name, 'denied by the config');
      throw new Error('upstream went away');
    };
    const { script, child } = fakeScript({ callTool });
    child.receive({ t: 'call', id: 1, tool: 'echo', args: '{}' });
    child.receive({ t: 'call', id: 2, tool: 'echo', args: '{"refuse":true}' });
    const [failed, refused] = await sentAfter(child, 'result', 2);
    expect(failed).toEqual({
      message: { t: 'result', id: 1, kind: 'ok' },
      payload: JSON.stringify({ content: [{ type: 'text', text: 'upstream went away' }], isError: true }),
    });
    expect(refused!.message).toMatchObject({
      id: 2,
      kind: 'refused',
      message: 'TOOL_DENIED: echo was refused: denied by the config. Nothing was sent.',
    });
    child.receive({ t: 'end', status: 'finished', read: 2 });
    await script.ended;
    expect(script.takeReturn().calls).toMatchObject({ answered: 1, refused: 1 });
  });

  it('answers a result past a third of the memory, or too large to read, with too_large: the call took effect', async () => {
    const callTool: ToolCaller = async (name, args) => {
      if (args.unread === true) throw new ResultTooLargeError('up', name, 'its answer was past the limit');
      return { content: [{ type: 'text', text: 'x'.repeat(2 * 1024 * 1024) }] };
    };
    const { child } = fakeScript({ callTool, limits: { memoryMaxBytes: 4 * 1024 * 1024 } });
    child.receive({ t: 'call', id: 1, tool: 'echo', args: '{}' });
    child.receive({ t: 'call', id: 2, tool: 'echo', args: '{"unread":true}' });
    const [big, unread] = await sentAfter(child, 'result', 2);
    expect(big!.message).toMatchObject({
      kind: 'too_large',
      message: expect.stringMatching(/^The call took effect, but its result is \d+ bytes of JSON, past the cap of 1398101/),
    });
    expect(unread!.message).toMatchObject({
      kind: 'too_large',
      message: 'The call took effect, but its answer was past the limit.',
    });
    child.exit();
  });

  it('times a call out past toolCallTimeoutMs, holds its place, and releases it when the tool answers', async () => {
    vi.useFakeTimers();
    let answer: () => void = () => {};
    const callTool: ToolCaller = () => new Promise((resolve) => (answer = () => resolve({ content: [] })));
    const { script, child } = fakeScript({ callTool, limits: { toolCallTimeoutMs: 100 } });
    child.receive({ t: 'call', id: 1, tool: 'echo', args: '{}' });
    vi.advanceTimersByTime(99);
    expect(child.sentOf('result')).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(child.sentOf('result')).toEqual([
      {
        message: {
          t: 'result',
          id: 1,
          kind: 'timeout',
          message:
            'tools["echo"] took longer than 100 ms (the server\'s toolCallTimeoutMs); it may still be running and may take effect',
        },
      },
    ]);
    expect(script.takeReturn().calls.inFlight).toBe(1);
    answer();
    await vi.waitFor(() => expect(child.sentOf('release')).toEqual([{ message: { t: 'release', id: 1 } }]));
    child.receive({ t: 'end', status: 'finished', read: 0 });
    await script.ended;
    expect(script.takeReturn().calls).toMatchObject({
      inFlight: 0,
      unseen: [{ tool: 'echo', args: '{}', fate: 'timed out after 100 ms; the tool answered later' }],
    });
  });

  it('sends the resources calls to callResource, named as the record names them', async () => {
    const resources = memoryResources();
    const { script, child } = fakeScript({ callResource: resources.callResource });
    child.receive({ t: 'call', id: 1, tool: 'resources.list', args: '{}', api: true });
    child.receive({ t: 'call', id: 2, tool: 'resources.read', args: '{"uri":"test://a"}', api: true });
    const results = await sentAfter(child, 'result', 2);
    expect(resources.seen).toEqual([
      { call: 'resources.list', label: 'resources.list()' },
      { call: 'resources.read', label: 'resources.read("test://a")', uri: 'test://a' },
    ]);
    expect(JSON.parse(results[1]!.payload!)).toEqual({ contents: [{ uri: 'test://a', text: 'read test://a' }] });
    child.receive({ t: 'end', status: 'finished', read: 2 });
    await script.ended;
    expect(script.takeReturn().calls.answered).toBe(2);
  });

  it('refuses resources calls on a server without them, and makes a failed read an empty isError read', async () => {
    const withNone = fakeScript();
    withNone.child.receive({ t: 'call', id: 1, tool: 'resources.read', args: '{"uri":"test://a"}', api: true });
    const [refused] = await sentAfter(withNone.child, 'result');
    expect(refused!.message).toMatchObject({
      kind: 'refused',
      message: expect.stringContaining(
        'RESOURCE_UNKNOWN: resources.read("test://a") was refused: this server was started without access to resources',
      ),
    });
    withNone.child.exit();

    const failing = fakeScript({
      callResource: async () => {
        throw new Error('upstream went away');
      },
    });
    failing.child.receive({ t: 'call', id: 1, tool: 'resources.read', args: '{"uri":"test://a"}', api: true });
    const [failed] = await sentAfter(failing.child, 'result');
    expect(JSON.parse(failed!.payload!)).toEqual({
      contents: [],
      content: [{ type: 'text', text: 'upstream went away' }],
      isError: true,
    });
    failing.child.exit();
  });

  it('sends nothing for a call answered after the script ended', async () => {
    let answer: () => void = () => {};
    const callTool: ToolCaller = () => new Promise((resolve) => (answer = () => resolve({ content: [] })));
    const { script, child } = fakeScript({ callTool });
    child.receive({ t: 'call', id: 1, tool: 'echo', args: '{}' });
    child.receive({ t: 'end', status: 'finished', read: 0 });
    await script.ended;
    answer();
    await new Promise((resolve) => setImmediate(resolve));
    expect(child.sentOf('result')).toEqual([]);
  });
});
