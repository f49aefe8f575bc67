// An exposed tool whose upstream makes tasks itself (2026-07-28 with the Tasks extension, the
// fixture task-maker.mjs), called over HTTP by a 2026-07-28 client that declares the extension:
// the upstream's own answer to each round decides (SEP-2663 with SEP-2322). Input asked in round 1
// passes through as input_required (no task); a round it answers with a task becomes our task,
// whose tasks/get ends as the upstream's task does, whose questions tasks/update answers, and
// whose tasks/cancel cancels the upstream's; a plain answer passes through as the result.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startInProcessHttp, type InProcessHttpServer } from '../support/in-process-http.js';
import { fixturePath } from '../support/mcp-client.js';
import { TasksClient, resultOf, untilStatus } from '../support/tasks-client.js';

let server: InProcessHttpServer;

beforeAll(async () => {
  server = await startInProcessHttp([
    '--pool',
    '0',
    '--expose',
    '*',
    '--',
    process.execPath,
    fixturePath('upstreams/task-maker.mjs'),
  ]);
});

afterAll(async () => {
  expect((await server.stop()).left).toEqual([]);
});

const client = (): TasksClient => new TasksClient(server.url, { capabilities: { elicitation: { form: {} } } });
const call = async (tasks: TasksClient, name: string, more: Record<string, unknown> = {}) =>
  resultOf(await tasks.request('tools/call', { name, arguments: {}, ...more }));
const TERMINAL = ['completed', 'failed', 'cancelled'];
const TASK_ID = /^[0-9a-f]{6}-call\d+\.[\w-]{22}$/;

/** Waits for the task to end, and checks it completed with one text block, `text`. */
async function expectCompleted(tasks: TasksClient, taskId: string, text: string): Promise<void> {
  expect(await untilStatus(tasks, taskId, TERMINAL)).toMatchObject({
    status: 'completed',
    result: { content: [{ type: 'text', text }] },
  });
}

describe('an exposed tool of an upstream that makes tasks itself', () => {
  test('round 1 that the upstream answers input_required passes through with no task; round 2, answered with a task, is ours and completes with the answer', async () => {
    const tasks = client();
    const first = await call(tasks, 'who_then_task');
    expect(first).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
    expect(first).not.toHaveProperty('taskId');
    expect(Object.keys(first.inputRequests as object)).toEqual(['user_name']);

    const second = await call(tasks, 'who_then_task', {
      inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
      requestState: first.requestState,
    });
    expect(second).toMatchObject({ resultType: 'task', status: 'working', taskId: expect.stringMatching(TASK_ID) });
    expect(second).not.toHaveProperty('requestState');
    expect(second).not.toHaveProperty('inputRequests');
    await expectCompleted(tasks, second.taskId as string, 'Hello, Alice, from a task');
  });

  test("what the upstream's task asks mid-way is on tasks/get, and tasks/update's answer reaches it", async () => {
    const tasks = client();
    const created = await call(tasks, 'ask_name');
    expect(created).toMatchObject({ resultType: 'task', taskId: expect.stringMatching(TASK_ID) });
    const asking = await untilStatus(tasks, created.taskId as string, ['input_required']);
    const [key, request] = Object.entries(asking.inputRequests as Record<string, unknown>)[0] ?? [];
    expect(request).toMatchObject({ method: 'elicitation/create', params: { message: 'Who is asking?' } });
    const updated = await tasks.request('tasks/update', {
      taskId: created.taskId,
      inputResponses: { [key!]: { action: 'accept', content: { name: 'Ada' } } },
    });
    expect(updated.error).toBeUndefined();
    await expectCompleted(tasks, created.taskId as string, 'Hello, Ada');
  });

  test("tasks/cancel cancels the upstream's task", async () => {
    const tasks = client();
    const created = await call(tasks, 'hold');
    expect(created).toMatchObject({ resultType: 'task' });
    expect((await tasks.request('tasks/cancel', { taskId: created.taskId })).error).toBeUndefined();
    await server.logged(/\[task-maker\] tasks\/cancel task-/);
    expect(await untilStatus(tasks, created.taskId as string, TERMINAL)).toMatchObject({ status: 'cancelled' });
  });

  test("a failed upstream task fails ours with the upstream's error", async () => {
    const tasks = client();
    const created = await call(tasks, 'fail');
    expect(await untilStatus(tasks, created.taskId as string, TERMINAL)).toMatchObject({
      status: 'failed',
      error: { code: -32001, message: expect.stringContaining('the job failed, as meant') },
    });
  });

  test('a plain answer passes through as the result', async () => {
    expect(await call(client(), 'plain')).toMatchObject({ resultType: 'complete', content: [{ text: 'a plain answer' }] });
  });

  test("a client without the extension gets the upstream's -32021 for a tool it runs only as a task", async () => {
    const plain = new TasksClient(server.url, { tasks: false });
    const refused = await plain.request('tools/call', { name: 'report', arguments: {} });
    expect(refused.error).toMatchObject({ code: -32021, message: expect.stringContaining('report runs only as a task') });
  });
});

describe('the conformance fixture speaking 2026-07-28 (as tasks-mrtr-composition calls it)', () => {
  test('test_tool_with_task asks for the name by input_required, then answers with a task whose result has the name', async () => {
    const fixture = await startInProcessHttp([
      '--pool',
      '0',
      '--expose',
      '*',
      '--',
      process.execPath,
      fixturePath('upstreams/conformance-everything.mjs'),
      '--current-revision',
    ]);
    const tasks = new TasksClient(fixture.url, { capabilities: { elicitation: {} } });
    const first = await call(tasks, 'test_tool_with_task');
    expect(first).toMatchObject({ resultType: 'input_required', inputRequests: { user_name: { method: 'elicitation/create' } } });
    const second = await call(tasks, 'test_tool_with_task', {
      inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
      ...(first.requestState !== undefined ? { requestState: first.requestState } : {}),
    });
    expect(second).toMatchObject({ resultType: 'task', taskId: expect.stringMatching(TASK_ID) });
    await expectCompleted(tasks, second.taskId as string, 'Hello, Alice');
    expect((await fixture.stop()).left).toEqual([]);
  });
});
