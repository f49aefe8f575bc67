// code_execution as an MCP task (the Tasks extension, SEP-2663) for a 2026-07-28 client that
// declares it, over HTTP: a run whose script outlives its yield answers with a task; tasks/get
// tells its progress and, once it ends, gives what a wait would; tasks/update answers what it
// asks (an upstream's elicitation); tasks/cancel stops it. A client without the extension keeps
// run/wait/stop, and its tasks/* requests are refused naming the extension.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startInProcessHttp, type InProcessHttpServer } from '../support/in-process-http.js';
import { rawInProcess } from '../support/in-process-server.js';
import { fixturePath } from '../support/mcp-client.js';
import { TASKS_EXTENSION, TasksClient, resultOf, untilStatus } from '../support/tasks-client.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { until } from '../support/waiting.js';

const ADA = 'ada-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef';

let server: InProcessHttpServer;

beforeAll(async () => {
  const tokens = join(makeTempDir('tokens'), 'tokens.json');
  writeFileSync(tokens, JSON.stringify({ ada: ADA, bob: BOB }));
  chmodSync(tokens, 0o600);
  server = await startInProcessHttp([
    '--http-tokens-file',
    tokens,
    '--pool',
    '0',
    '--expose',
    'greet',
    '--expose',
    '*_job',
    '--expose',
    'confirm_delete',
    '--',
    process.execPath,
    fixturePath('upstreams/conformance-everything.mjs'),
  ]);
});

afterAll(async () => {
  expect((await server.stop()).left).toEqual([]);
});

const ada = (): TasksClient => new TasksClient(server.url, { token: ADA, capabilities: { elicitation: { form: {} } } });

describe('code_execution as a task', () => {
  test('the server offers the Tasks extension', async () => {
    const discovered = resultOf(await ada().request('server/discover'));
    expect(discovered.capabilities).toMatchObject({ extensions: { 'io.modelcontextprotocol/tasks': {} } });
  });

  test('a script still running at its yield is a task: asked for input, answered by tasks/update, its result on tasks/get', async () => {
    const client = ada();
    const created = await client.codeExecution({
      code: `notify({ phase: "asking" });
        const answer = await tools["test_elicitation"]({ message: "Name?" });
        return answer.content[0].text;`,
      yield_ms: 0,
    });
    expect(created).toMatchObject({ resultType: 'task', status: expect.stringMatching(/^(working|input_required)$/) });
    expect(created).not.toHaveProperty('result');
    expect(created).not.toHaveProperty('requestState');
    const taskId = created.taskId as string;
    expect(taskId).toMatch(/^[0-9a-f]{6}-\d+\.[\w-]{22}$/);
    expect(Number.isInteger(created.ttlMs) && Number.isInteger(created.pollIntervalMs)).toBe(true);

    const asking = await untilStatus(client, taskId, ['input_required']);
    const requests = asking.inputRequests as Record<string, { method: string; params: { message: string } }>;
    const [key] = Object.keys(requests);
    expect(requests[key!]).toMatchObject({ method: 'elicitation/create', params: { message: 'Name?' } });
    expect(asking.statusMessage).toMatch(
      /^script [0-9a-f]{6}-\d+ running \d+ s: 0 calls answered, 1 in flight; last notify: \{"phase":"asking"\}; waiting for the client: elicitation\/create \("Name\?"\)$/,
    );

    const ack = await client.request('tasks/update', {
      taskId,
      inputResponses: { [key!]: { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } } },
    });
    expect(ack.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });

    const done = await untilStatus(client, taskId, ['completed', 'failed', 'cancelled']);
    expect(done.status).toBe('completed');
    const result = done.result as { content: Array<{ text: string }>; isError: boolean; structuredContent: { value: string } };
    expect(result.isError).toBe(false);
    expect(result.structuredContent.value).toContain('User response: action=accept');
    expect(result.content[0]!.text).toMatch(/finished/);
    expect(done.statusMessage).toMatch(/^script \S+ finished: 1 call answered/);
    // lastUpdatedAt moves with the status, never back.
    const times = [created, asking, done].map((task) => Date.parse(task.lastUpdatedAt as string));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(times[2]).toBeGreaterThan(times[0]!);
    // Kept: asked again, the same ending.
    expect((await client.getTask(taskId)).result).toEqual(done.result);
  });

  test("what one task asks is that task's: another task of the caller keeps working, and a new run is not held up", async () => {
    const client = ada();
    const other = await client.codeExecution({ code: 'for (;;) await new Promise((r) => setTimeout(r, 20))', yield_ms: 0 });
    const asking = await client.codeExecution({
      code: 'return (await tools["test_elicitation"]({ message: "Who?" })).content[0].text',
      yield_ms: 0,
    });
    const waiting = await untilStatus(client, asking.taskId as string, ['input_required']);
    const otherNow = await client.getTask(other.taskId as string);
    expect(otherNow.status).toBe('working');
    expect(otherNow).not.toHaveProperty('inputRequests');
    expect(await client.codeExecution({ code: 'return "free"' })).toMatchObject({ structuredContent: { value: 'free' } });
    const [key] = Object.keys(waiting.inputRequests as object);
    await client.request('tasks/update', { taskId: asking.taskId, inputResponses: { [key!]: { action: 'decline' } } });
    expect(await untilStatus(client, asking.taskId as string, ['completed'])).toMatchObject({ result: { isError: false } });
    await client.request('tasks/cancel', { taskId: other.taskId });
  });

  test('a script that throws completes with isError; tasks/cancel stops a running one, which ends cancelled', async () => {
    const client = ada();
    const failing = await client.codeExecution({
      code: 'await new Promise((r) => setTimeout(r, 10)); throw new Error("boom")',
      yield_ms: 0,
    });
    const failed = await untilStatus(client, failing.taskId as string, ['completed', 'failed', 'cancelled']);
    expect(failed).toMatchObject({ status: 'completed', result: { isError: true } });
    expect(JSON.stringify(failed.result)).toContain('boom');

    const looping = await client.codeExecution({ code: 'for (;;) await new Promise((r) => setTimeout(r, 20))', yield_ms: 0 });
    const taskId = looping.taskId as string;
    expect((await client.getTask(taskId)).status).toBe('working');
    const ack = resultOf(await client.request('tasks/cancel', { taskId }));
    expect(Object.keys(ack).sort()).toEqual(['_meta', 'resultType']);
    const cancelled = await untilStatus(client, taskId, ['completed', 'failed', 'cancelled']);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled).not.toHaveProperty('result');
    // Cancelling an ended task is the same empty ack.
    expect(resultOf(await client.request('tasks/cancel', { taskId })).resultType).toBe('complete');
  });

  test('a script that ends within its yield answers as ever; a wait on a task’s script works as for any script', async () => {
    const client = ada();
    const quick = await client.codeExecution({ code: 'return 6 * 7' });
    expect(quick).toMatchObject({ resultType: 'complete', structuredContent: { status: 'finished', value: 42 } });
    const slow = await client.codeExecution({ code: 'await new Promise((r) => setTimeout(r, 30)); return "late"', yield_ms: 0 });
    const script = (slow.taskId as string).split('.')[0];
    const waited = await client.codeExecution({ action: 'wait', script });
    expect(waited).toMatchObject({ structuredContent: { status: 'finished', value: 'late' } });
  });

  test("a task is its principal's: another's tasks/get, update and cancel are answered as unknown (-32602)", async () => {
    const created = await ada().codeExecution({ code: 'for (;;) await new Promise((r) => setTimeout(r, 20))', yield_ms: 0 });
    const taskId = created.taskId as string;
    const bob = new TasksClient(server.url, { token: BOB });
    for (const [method, params] of [
      ['tasks/get', { taskId }],
      ['tasks/update', { taskId, inputResponses: {} }],
      ['tasks/cancel', { taskId }],
    ] as const) {
      const answer = await bob.request(method, params);
      expect(answer.error).toMatchObject({
        code: -32602,
        message: expect.stringContaining(`no task "${taskId}" of this caller`),
      });
    }
    expect((await ada().getTask(taskId)).status).toBe('working');
    await ada().request('tasks/cancel', { taskId });
    // Another instance's task (the load balancer sent its tasks/get here: it is gone) is said so.
    const elsewhere = await ada().request('tasks/get', { taskId: 'b.abcdef-3.AAAAAAAAAAAAAAAAAAAAAA' });
    expect(elsewhere.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('task "b.abcdef-3.AAAAAAAAAAAAAAAAAAAAAA" was started on instance "b", which is gone'),
    });
  });

  test('without the extension: a run answers as before, and tasks/* are refused with -32021 naming it', async () => {
    const plain = new TasksClient(server.url, { token: ADA, tasks: false });
    const ran = await plain.codeExecution({ code: 'await new Promise((r) => setTimeout(r, 30)); return 1', yield_ms: 0 });
    expect(ran).toMatchObject({ resultType: 'complete', structuredContent: { status: 'running' } });
    const answer = await plain.request('tasks/get', { taskId: 'anything' });
    expect(answer.error).toMatchObject({
      code: -32021,
      message: expect.stringContaining('io.modelcontextprotocol/tasks'),
      data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    });
    for (const method of ['tasks/list', 'tasks/result']) {
      expect((await ada().request(method, { taskId: 'x' })).error).toMatchObject({ code: -32601 });
    }
  });
});

describe("an exposed tool that offers tasks (its upstream's execution.taskSupport)", () => {
  test('is called as a task: its result, its own error, a protocol error, and what its upstream asks', async () => {
    const client = ada();
    const call = async (name: string) => resultOf(await client.request('tools/call', { name, arguments: {} }));
    const terminal = ['completed', 'failed', 'cancelled'];

    expect(resultOf(await client.request('tools/call', { name: 'greet', arguments: { name: 'Ada' } }))).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Hello, Ada!' }],
    });
    const failing = await call('failing_job');
    expect(failing).toMatchObject({ resultType: 'task', status: 'working' });
    expect(failing.taskId).toMatch(/^[0-9a-f]{6}-call\d+\.[\w-]{22}$/);
    expect(await untilStatus(client, failing.taskId as string, terminal)).toMatchObject({
      status: 'completed',
      result: { isError: true, content: [{ text: 'The job failed: it was meant to' }] },
    });
    const broken = await untilStatus(client, (await call('protocol_error_job')).taskId as string, terminal);
    expect(broken).toMatchObject({ status: 'failed', error: { code: -32603, message: expect.stringContaining('as meant') } });
    expect(broken).not.toHaveProperty('result');

    const confirming = await call('confirm_delete');
    const asked = await untilStatus(client, confirming.taskId as string, ['input_required']);
    const [key] = Object.keys(asked.inputRequests as object);
    await client.request('tasks/update', {
      taskId: confirming.taskId,
      inputResponses: { [key!]: { action: 'accept', content: { confirm: true } } },
    });
    expect(await untilStatus(client, confirming.taskId as string, terminal)).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'Delete confirmed' }] },
    });
  });

  test('one that requires a task is refused with -32021 to a client without the extension; one that may be one runs as a plain call', async () => {
    const plain = new TasksClient(server.url, { token: ADA, tasks: false });
    const required = await plain.request('tools/call', { name: 'failing_job', arguments: {} });
    expect(required.error).toMatchObject({
      code: -32021,
      message: expect.stringContaining('failing_job can only be called as a task'),
      data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    });
    const optional = await plain.request('tools/call', { name: 'protocol_error_job', arguments: {} });
    expect(optional.error).toMatchObject({ code: -32603, message: expect.stringContaining('as meant') });
  });
});

describe('over stdio', () => {
  test('a 2026-07-28 client that declares the extension gets a task, and polls it to its result', async () => {
    const server = rawInProcess(['--pool', '0', '--', process.execPath, fixturePath('upstreams/conformance-everything.mjs')]);
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'tasks-stdio', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } },
    };
    let id = 0;
    const request = async (method: string, params: Record<string, unknown>) => {
      const sent = ++id;
      await server.write({ jsonrpc: '2.0', id: sent, method, params: { ...params, _meta: envelope } });
      return server.answerTo(sent);
    };
    const created = await request('tools/call', {
      name: 'code_execution',
      arguments: { code: 'await new Promise((r) => setTimeout(r, 30)); notify({ step: 1 }); return "done"', yield_ms: 0 },
    });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = created.result!.taskId as string;
    const done = await until(`task ${taskId} to complete`, async () => {
      const got = (await request('tasks/get', { taskId })).result!;
      return got.status === 'completed' ? got : undefined;
    });
    expect(done).toMatchObject({
      result: { isError: false, structuredContent: { value: 'done', notifications: [{ step: 1 }] } },
    });
    expect(await server.close()).toEqual([]);
  });
});
