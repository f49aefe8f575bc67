import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ENGINE_MAIN } from '../../src/script-host/engine-path.js';
import { DEFAULT_SETTINGS } from '../../src/config/settings.js';
import { childPidsOf, commandLineOf } from '../support/processes.js';
import { publishedEntry, textOf, valueOf } from '../support/mcp-client.js';
import { startInProcess, type InProcessServer } from '../support/in-process-server.js';

// One server for the file: these tests only read, and server-everything takes 2 s to close. The
// burst test comes last: it may leave the pool grown.
let server: InProcessServer;

beforeAll(async () => {
  server = await startInProcess(['--', process.execPath, publishedEntry('server-everything'), 'stdio']);
});

afterAll(async () => {
  expect(await server.close()).toEqual([]);
  expect(childPidsOf(process.pid)).toEqual([]);
});

describe('in front of server-everything', () => {
  test('tools/list offers one tool, code_execution, whose description names the upstream tools', async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['code_execution']);
    const [tool] = tools;
    expect(tool!.description!.length).toBeLessThanOrEqual(2_048);
    expect(tool!.description).toContain('get-sum');
    expect(tool!.inputSchema).toMatchObject({
      type: 'object',
      properties: { code: { type: 'string' }, action: { enum: ['run', 'wait', 'stop', 'list'] }, script: {}, yield_ms: {} },
    });
    expect(tool!.inputSchema.required).toBeUndefined();
  });

  test('a script calling get-sum of 2 and 40 returns 42', async () => {
    const result = await server.run({ code: 'return (await tools["get-sum"]({a: 2, b: 40}))' });
    expect(result.isError).toBe(false);
    expect(textOf(result)).toMatch(/^Script \S+ finished/);
    expect(valueOf(result)).toMatchObject({ content: [{ type: 'text', text: 'The sum of 2 and 40 is 42.' }] });
    expect(result.structuredContent).toMatchObject({ status: 'finished', calls: { answered: 1 } });
  });

  test('get-tiny-image comes back as an image block with its data', async () => {
    const result = await server.run({
      code: 'const r = await tools["get-tiny-image"]({}); return r.content.find((block) => block.type === "image")',
    });
    const value = valueOf(result) as { type: string; mimeType: string; data: string };
    expect(value).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(Buffer.from(value.data, 'base64').subarray(1, 4).toString()).toBe('PNG');
  });

  test("returning get-tiny-image's result gives the client an image block, the base64 once and not inside the text", async () => {
    const result = await server.run({ code: 'return await tools["get-tiny-image"]({})' });
    const image = result.content.find((block) => block.type === 'image');
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    const data = (image as { data: string }).data;
    expect(Buffer.from(data, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(textOf(result)).not.toContain(data);
    expect(textOf(result)).toContain(`"data":"[${data.length} characters: shown as a block of this answer]"`);
    expect(JSON.stringify(result.structuredContent)).not.toContain(data);
  });

  test('show() of a resource and an image puts both blocks in the answer, after the text', async () => {
    const result = await server.run({
      code: 'const r = await tools["get-tiny-image"]({}); show(r.content.find((b) => b.type === "image")); show({ type: "resource", resource: { uri: "memo://1", mimeType: "text/plain", text: "a memo" } }); return "shown"',
    });
    expect(result.content.map((block) => block.type)).toEqual(['text', 'image', 'resource']);
    expect(result.content[2]).toEqual({
      type: 'resource',
      resource: { uri: 'memo://1', mimeType: 'text/plain', text: 'a memo' },
    });
    expect(textOf(result)).toContain('shown: 2 blocks after this text: image (image/png,');
  });

  test('get-structured-content gives its structuredContent to the script', async () => {
    const result = await server.run({
      code: 'return (await tools["get-structured-content"]({location: "Chicago"})).structuredContent',
    });
    expect(valueOf(result)).toMatchObject({
      temperature: expect.any(Number),
      conditions: expect.any(String),
    });
  });

  test('a tools/call for any other name is an error naming the one tool', async () => {
    await expect(server.client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } })).rejects.toThrow(
      /Unknown tool "get-sum": this server offers one tool, "code_execution"/,
    );
    const result = await server.run({ code: 'return 1 + 1' });
    expect(valueOf(result)).toBe(2);
  });
});

const AT_ONCE = 16;
const ONE_CALL = 'return (await tools["get-sum"]({ a: 2, b: 40 })).content[0].text';

/** The server's script children (alive, pooled or running), by their command line. */
function scriptChildren(): number[] {
  return childPidsOf(process.pid).filter((pid) => commandLineOf(pid)?.includes(ENGINE_MAIN) === true);
}

/** The pool's lines in the server's log, to say what it did when a wait fails. */
function poolLines(): string {
  return server
    .stderr()
    .split('\n')
    .filter((line) => /pool/.test(line))
    .join('\n');
}

async function burst(): Promise<string[]> {
  const results = await Promise.all(Array.from({ length: AT_ONCE }, () => server.run({ code: ONE_CALL })));
  expect(results.filter((result) => result.isError).map(textOf)).toEqual([]);
  return results.map((result) => valueOf(result) as string);
}

describe('a burst of runs with the default settings', () => {
  test(`${AT_ONCE} one-call runs sent at once are all served, none refused, twice`, async () => {
    expect(DEFAULT_SETTINGS.maxScriptChildren).toBeGreaterThanOrEqual(AT_ONCE);
    const sum = 'The sum of 2 and 40 is 42.';
    // Whether a run waits for a busy child or gets a new one depends on what the pool measured on
    // this machine (test/scripts/child-pool.test.ts has each case, on a fake clock): either way, every
    // run is served, and the cap is never reached by children kept idle.
    expect(await burst()).toEqual(Array.from({ length: AT_ONCE }, () => sum));
    expect(scriptChildren().length, poolLines()).toBeLessThanOrEqual(DEFAULT_SETTINGS.maxScriptChildren);
    expect(await burst()).toEqual(Array.from({ length: AT_ONCE }, () => sum));
  }, 240_000);
});
