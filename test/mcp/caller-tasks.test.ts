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

/** Work that runs until cancelled, under `key` (a script's id). */
function work(key: string): TaskWork {
  let end: (ended: Ended) => void = () => {};
  return {
    key,
    ended: new Promise<Ended>((resolve) => (end = resolve)),
    statusLine: () => `${key} running`,
    cancel: () => end({ status: 'cancelled' }),
  };
}

function open(): { inputs: InputQueue; tasks: CallerTasks } {
  const inputs = new InputQueue();
  return { inputs, tasks: new CallerTasks({ inputs, scriptLifetimeMs: 60_000 }) };
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
