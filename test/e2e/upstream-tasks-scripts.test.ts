// A script's call of a tool whose upstream makes tasks itself (2026-07-28 with the Tasks extension,
// the fixture task-maker.mjs): the call declares the extension, the upstream's task is followed by
// tasks/get and turned back into the call's answer; what the task asks mid-way reaches our client,
// and a script stopped mid-call cancels the task upstream. Without it, the task-only tool could not
// be called at all (-32021), and the SDK's client refused the task answer (UNSUPPORTED_RESULT_TYPE).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fixturePath, stderrLine, textOf, valueOf } from '../support/mcp-client.js';
import { startInProcess, type InProcessServer } from '../support/in-process-server.js';

const taskMaker = ['--pool', '0', '--log-level', 'debug', '--', process.execPath, fixturePath('upstreams/task-maker.mjs')];

describe('a script calling a tool of an upstream that makes tasks itself', () => {
  let server: InProcessServer;
  const asked: string[] = [];

  beforeAll(async () => {
    server = await startInProcess(taskMaker, {
      capabilities: { elicitation: { form: {} } },
      onElicit: (request) => {
        asked.push(request.params.message);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
  });

  afterAll(async () => {
    expect(await server.close()).toEqual([]);
  });

  test("gets the task's result, as if the call had answered with it", async () => {
    const result = await server.run({ code: 'return (await tools["report"]({ topic: "sales" })).content[0].text' });
    expect(valueOf(result)).toBe('report on sales');
    expect(server.stderr()).toMatch(/tools\/call report answered with task task-\S+; following it/);
  });

  test('is asked, through its client, what the task asks mid-way, and the answer goes back by tasks/update', async () => {
    const result = await server.run({ code: 'return (await tools["ask_name"]({})).content[0].text' });
    expect(valueOf(result)).toBe('Hello, Ada');
    expect(asked).toEqual(['Who is asking?']);
    await stderrLine(server, /\[task-maker\] tasks\/update task-\S+ who$/);
  });

  test("sees a failed task's error as a failed call's result", async () => {
    const result = await server.run({
      code: 'const failed = await tools["fail"]({}); return [failed.isError, failed.content[0].text]',
    });
    expect(valueOf(result)).toEqual([true, expect.stringContaining('the job failed, as meant')]);
  });

  test('gets a plain answer as it came, though the call declared the extension', async () => {
    const result = await server.run({ code: 'return (await tools["plain"]({})).content[0].text' });
    expect(valueOf(result)).toBe('a plain answer');
  });

  test('stopped mid-call, cancels the task upstream (tasks/cancel)', async () => {
    const started = await server.run({ code: 'await tools["hold"]({}); return "held"', yield_ms: 0 });
    const script = /^Script (\S+) running/.exec(textOf(started))?.[1];
    expect(script, textOf(started)).toBeDefined();
    await stderrLine(server, /tools\/call hold answered with task/);
    await server.run({ action: 'stop', script });
    const cancel = await stderrLine(server, /\[task-maker\] tasks\/cancel task-/);
    expect(cancel).toMatch(/tasks\/cancel task-[0-9a-f-]+$/);
  });
});
