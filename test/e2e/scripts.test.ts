import type { CallToolResult, Progress } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eventually, fixturePath, structuredOf, textOf } from '../support/mcp-client.js';
import { startInProcess, type InProcessServer } from '../support/in-process-server.js';

// One server for the file; each test starts its own scripts and reads only their answers.
let server: InProcessServer;

beforeAll(async () => {
  server = await startInProcess(['--', process.execPath, fixturePath('upstreams/recorder.mjs')]);
});

afterAll(async () => {
  expect(await server.close()).toEqual([]);
});

interface Answer {
  script: string;
  status: string;
  value?: unknown;
  output: { head: string; tail: string; dropped: number };
}
const answerOf = (result: CallToolResult): Answer => structuredOf(result) as unknown as Answer;
const outputOf = (answer: Answer): string => answer.output.head + answer.output.tail;

describe('running, waiting, stopping and listing over MCP', () => {
  test('a run past its yield_ms answers running with the output so far; a wait gets the rest once, and the ending', async () => {
    const first = await server.run({
      code: 'console.log("first"); await sleep(4000); console.log("second"); return "done"',
      yield_ms: 1500,
    });
    const running = answerOf(first);
    expect(running.status).toBe('running');
    expect(first.isError).toBe(false);
    expect(textOf(first)).toMatch(new RegExp(`^Script ${running.script} running`));
    // What was printed by the yield: "first" at once on an idle machine; on a loaded one the
    // child may not have started yet. Either way each line comes back once, in order.
    expect(['first\n', '']).toContain(outputOf(running));
    let output = outputOf(running);
    let answer = running;
    while (answer.status === 'running') {
      answer = answerOf(await server.run({ action: 'wait', script: running.script }));
      output += outputOf(answer);
    }
    expect(answer).toMatchObject({ script: running.script, status: 'finished', value: 'done' });
    expect(output).toBe('first\nsecond\n');
  });

  test('a stop lands on a script spinning in a busy loop, and list shows both scripts', async () => {
    const started = answerOf(await server.run({ code: 'console.log("spinning"); while (true) {}', yield_ms: 200 }));
    expect(started.status).toBe('running');
    const stopped = await server.run({ action: 'stop', script: started.script });
    expect(answerOf(stopped)).toMatchObject({ script: started.script, status: 'stopped' });

    const finished = answerOf(await server.run({ code: 'return 7' }));
    const list = await server.run({ action: 'list' });
    expect(list.isError).toBe(false);
    const listed = structuredOf(list).scripts as Array<{ id: string; status: string }>;
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: started.script, status: 'stopped' }),
        expect.objectContaining({ id: finished.script, status: 'finished' }),
      ]),
    );
    expect(textOf(list)).toContain(`${started.script} stopped`);
  });
});

describe('bad input gets a clear answer and the server keeps serving', () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['an empty input', {}, /nothing to do: code_execution accepts \{"code"/],
    ['an unknown action', { action: 'dance' }, /action must be one of "run", "wait", "stop", "list"; got "dance"/],
    ['a wait with no script', { action: 'wait' }, /wait needs the script's id/],
    ['a wait on an unknown id', { action: 'wait', script: 'nope' }, /no script "nope" of this session/],
    ['code that is not a string', { code: 42 }, /code must be a string of JavaScript/],
  ];
  test.each(cases)('%s is refused with isError, saying what is accepted', async (_name, input, message) => {
    const result = await server.run(input);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(message);
    expect(answerOf(await server.run({ code: 'return "still serving"' })).value).toBe('still serving');
  });
});

describe('notify, progress and cancel', () => {
  test('notify() reaches the client as a logging notification, and as progress when the call has a progress token', async () => {
    const progress: Progress[] = [];
    const result = await server.run(
      { code: 'notify({ step: 1 }); await sleep(50); console.log("after"); return "ok"' },
      { onprogress: (update) => void progress.push(update) },
    );
    const { script } = answerOf(result);
    expect(server.logs).toContainEqual({ level: 'info', logger: 'codemode-mcp', data: { script, notify: { step: 1 } } });
    expect(progress.map((update) => update.message)).toContain('notify: {"step":1}');
    expect(progress.map((update) => update.progress)).toEqual(progress.map((_, index) => index + 1));
    expect(textOf(result)).toContain('notified: {"step":1}');
  });

  test("a client's cancel of a run whose script has returned nothing stops the script", async () => {
    const listScripts = async (): Promise<Array<{ id: string; status: string }>> =>
      structuredOf(await server.run({ action: 'list' })).scripts as Array<{ id: string; status: string }>;
    const before = new Set((await listScripts()).map((script) => script.id));
    const abort = new AbortController();
    const call = server.run({ code: 'console.log("working"); while (true) {}' }, { signal: abort.signal });
    const theNewOne = async (): Promise<{ id: string; status: string } | undefined> =>
      (await listScripts()).find((script) => !before.has(script.id));
    await eventually(async () => expect(await theNewOne()).toMatchObject({ status: 'running' }));
    abort.abort('the user pressed stop');
    await expect(call).rejects.toThrow();
    await eventually(async () => expect(await theNewOne()).toMatchObject({ status: 'stopped' }));
  });
});
