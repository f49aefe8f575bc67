// A task an upstream made of a call, followed until it ends (src/upstream/routing/upstream-task.ts),
// over a scripted upstream: its tasks/get answers in turn, the updates and cancels it was sent.
import { ProtocolError } from '@modelcontextprotocol/client';
import { describe, expect, test } from 'vitest';
import type { RoundAsk } from '../../src/upstream/routing/input-rounds.js';
import type { RelayedRequest } from '../../src/upstream/routing/relay.js';
import type { UpstreamTask } from '../../src/upstream/routing/task-answer.js';
import { followUpstreamTask, type TaskRequests } from '../../src/upstream/routing/upstream-task.js';
import { deferred } from '../../src/support/deferred.js';

const of = { server: 'up', tool: 'up__job' };
const TASK: UpstreamTask = { resultType: 'task', taskId: 'task-1', status: 'working', pollIntervalMs: 0 };
const NAME: RelayedRequest = {
  method: 'elicitation/create',
  params: { mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
};
const done = (text: string) => ({ status: 'completed', result: { content: [{ type: 'text', text }] } });
const noAsk: RoundAsk = () => Promise.reject(new Error('nothing should be asked'));

/** An upstream whose tasks/get answers `states` in turn (the last again and again), keeping what it was sent. */
function upstream(states: readonly unknown[]) {
  const sent: string[] = [];
  const updates: Array<Readonly<Record<string, unknown>>> = [];
  const cancelled = deferred<string>();
  let gets = 0;
  const requests: TaskRequests = {
    get: async (taskId) => {
      sent.push(`tasks/get ${taskId}`);
      // Polled as often as the hub allows, so the test takes no longer than it must.
      return { pollIntervalMs: 0, ...(states[Math.min(gets++, states.length - 1)] as object) };
    },
    update: async (taskId, responses) => {
      sent.push(`tasks/update ${taskId}`);
      updates.push(responses);
      return {};
    },
    cancel: (taskId) => {
      sent.push(`tasks/cancel ${taskId}`);
      cancelled.resolve(taskId);
    },
  };
  return { sent, updates, cancelled: cancelled.promise, requests };
}

describe('followUpstreamTask', () => {
  test("polls tasks/get until the task completes, and answers with the task's result", async () => {
    const up = upstream([{ status: 'working' }, { status: 'working' }, done('finished')]);
    const result = await followUpstreamTask(TASK, up.requests, noAsk, of, undefined);
    expect(result).toEqual({ content: [{ type: 'text', text: 'finished' }] });
    expect(up.sent).toEqual(['tasks/get task-1', 'tasks/get task-1', 'tasks/get task-1']);
  });

  test('a failed task throws its JSON-RPC error, as if the call had answered with it', async () => {
    const up = upstream([{ status: 'failed', error: { code: -32001, message: 'the job failed' } }]);
    const failure = await followUpstreamTask(TASK, up.requests, noAsk, of, undefined).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProtocolError);
    expect(failure).toMatchObject({ code: -32001, message: expect.stringContaining('the job failed') });
  });

  test('what an input_required task asks is asked once, and the answers go back by tasks/update', async () => {
    const asking = { status: 'input_required', inputRequests: { who: NAME } };
    // The second tasks/get still lists `who`: the upstream had not taken the answer in yet.
    const up = upstream([asking, asking, done('Hello, Ada')]);
    const asked: string[] = [];
    const ask: RoundAsk = async (request) => {
      asked.push(request.method);
      return { action: 'accept', content: { name: 'Ada' } };
    };
    const result = await followUpstreamTask(TASK, up.requests, ask, of, undefined);
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada' }]);
    expect(asked).toEqual(['elicitation/create']);
    expect(up.updates).toEqual([{ who: { action: 'accept', content: { name: 'Ada' } } }]);
  });

  test('a key asked again after the task has worked since is a new question, and is asked again', async () => {
    const asking = { status: 'input_required', inputRequests: { who: NAME } };
    const up = upstream([asking, { status: 'working' }, asking, done('Hello twice')]);
    let asked = 0;
    const ask: RoundAsk = async () => ({ action: 'accept', content: { name: `name ${++asked}` } });
    expect((await followUpstreamTask(TASK, up.requests, ask, of, undefined)).content).toEqual([
      { type: 'text', text: 'Hello twice' },
    ]);
    expect(up.updates).toEqual([
      { who: { action: 'accept', content: { name: 'name 1' } } },
      { who: { action: 'accept', content: { name: 'name 2' } } },
    ]);
  });

  test("the caller's abort cancels the task upstream and rejects with the abort's reason", async () => {
    const up = upstream([{ status: 'working' }]);
    const stop = new AbortController();
    const following = followUpstreamTask(TASK, up.requests, noAsk, of, stop.signal);
    await until(() => up.sent.length > 0);
    stop.abort(new Error('the script was stopped'));
    await expect(following).rejects.toThrow('the script was stopped');
    expect(await up.cancelled).toBe('task-1');
  });

  test('a tasks/get answer with a status the extension does not define fails the call, saying so', async () => {
    const up = upstream([{ status: 'paused' }]);
    await expect(followUpstreamTask(TASK, up.requests, noAsk, of, undefined)).rejects.toThrow(
      'said status "paused", not one of working, input_required, completed, failed, cancelled',
    );
  });
});

/** Resolves once `check` holds, checked at each turn of the event loop. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setImmediate(resolve));
}
