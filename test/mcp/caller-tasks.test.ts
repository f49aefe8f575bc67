// What an upstream asks a 2026-07-28 client during a task waits in the owner's InputQueue; a
// tasks/update answers it. Regression: keys were sequential (input-1, input-2), and an update of
// one task answered any task's question whose key it named.
import { describe, expect, test } from 'vitest';
import type { ElicitRequest } from '@modelcontextprotocol/server';
import { CallerTasks, type Ended, type TaskWork } from '../../src/mcp/caller-tasks.js';
import { InputQueue } from '../../src/mcp/input-queue.js';

const question: ElicitRequest = {
  method: 'elicitation/create',
  params: { mode: 'form', message: 'Delete it?', requestedSchema: { type: 'object', properties: {} } },
};

/** Work that runs until cancelled, under `key` (a script's id); `finish` ends it with a result of `text`. */
function work(key: string): TaskWork & { finish(text: string): Promise<void> } {
  let end: (ended: Ended) => void = () => {};
  const ended = new Promise<Ended>((resolve) => (end = resolve));
  return {
    key,
    ended,
    statusLine: () => `${key} running`,
    cancel: () => end({ status: 'cancelled' }),
    finish: async (text) => {
      end({ status: 'completed', result: { content: [{ type: 'text', text }] } });
      await ended;
      await Promise.resolve();
    },
  };
}

function open(resultsMaxBytes = 64 * 1024 * 1024): { inputs: InputQueue; tasks: CallerTasks } {
  const inputs = new InputQueue();
  return { inputs, tasks: new CallerTasks({ inputs, scriptLifetimeMs: 60_000, resultsMaxBytes }) };
}

describe("a task's answer", () => {
  test('reaches only the question its own task asked: another task naming that key answers nothing', async () => {
    const { inputs, tasks } = open();
    const first = tasks.create(work('s-1'));
    const second = tasks.create(work('s-2'));
    const asked = inputs.ask('fs', question, new AbortController().signal, 's-2');
    const [key] = Object.keys(inputs.requests('s-2'));

    tasks.update(first.taskId, { [key!]: { action: 'accept', content: {} } });
    expect(inputs.waiting([key!])).toBe(true);
    expect(tasks.get(second.taskId).status).toBe('input_required');

    tasks.update(second.taskId, { [key!]: { action: 'accept', content: {} } });
    await expect(asked).resolves.toEqual({ action: 'accept', content: {} });
    expect(tasks.get(second.taskId).status).toBe('working');
  });

  test("a task's status line shows the upstream's question with its control and bidi characters as escapes", () => {
    const { inputs, tasks } = open();
    const task = tasks.create(work('s-1'));
    const sly: ElicitRequest = { ...question, params: { ...question.params, message: 'Delete \u202etxt.exe\n[ok]' } };
    void inputs.ask('fs', sly, new AbortController().signal, 's-1').catch(() => {});
    expect(tasks.get(task.taskId).statusMessage).toContain('("Delete \\u202etxt.exe\\n[ok]")');
    inputs.failAll('done');
  });

  test('keys are unguessable: no two alike, and none counts up', () => {
    const { inputs } = open();
    for (let i = 0; i < 50; i++) void inputs.ask('fs', question, new AbortController().signal, 's-1').catch(() => {});
    const keys = Object.keys(inputs.requests('s-1'));
    expect(new Set(keys).size).toBe(50);
    for (const key of keys) expect(key).toMatch(/^input-[A-Za-z0-9_-]{16,}$/);
    inputs.failAll('done');
  });
});

// Regression: 100 tasks of 0.9 MB grew the server by 222 MiB, kept an hour; only their count was bounded.
describe("ended tasks' results", () => {
  test('are kept within taskResultsMaxBytes: past it the oldest are dropped, and tasks/get says so', async () => {
    const { tasks } = open(250_000);
    const made = ['s-1', 's-2', 's-3'].map((key) => ({ key, work: work(key) }));
    const ids = made.map(({ work: each }) => tasks.create(each).taskId);
    for (const { work: each } of made) await each.finish('x'.repeat(100_000));
    const [oldest, middle, newest] = ids.map((id) => tasks.get(id));
    expect(oldest).toMatchObject({ status: 'failed', error: { message: expect.stringContaining('taskResultsMaxBytes') } });
    expect(oldest!.result).toBeUndefined();
    expect(middle).toMatchObject({ status: 'completed', result: { content: [{ text: 'x'.repeat(100_000) }] } });
    expect(newest).toMatchObject({ status: 'completed' });
  });

  test('keep the newest result whatever its size', async () => {
    const { tasks } = open(1_000);
    const big = work('s-1');
    const id = tasks.create(big).taskId;
    await big.finish('y'.repeat(10_000));
    expect(tasks.get(id)).toMatchObject({ status: 'completed' });
  });
});
