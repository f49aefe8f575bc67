import { writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readRecord, until } from '../upstream/specs.js';
import { fixturePath, nodeEntry, publishedEntry, valueOf, writeConfig } from '../support/mcp-client.js';
import { startInProcess, type InProcessServer } from '../support/in-process-server.js';
import { makeTempDir } from '../support/temp-dirs.js';

// One server for the file, in front of three npm servers and the recorder fixture. The tests
// run in order: the last one kills the recorder.
let server: InProcessServer;
const dir = makeTempDir('e2e-several');
const recordFile = join(dir, 'record.jsonl');
const listChanges: number[] = [];

beforeAll(async () => {
  writeFileSync(join(dir, 'notes.txt'), 'remember the milk\n');
  const config = writeConfig({
    everything: nodeEntry(publishedEntry('server-everything'), ['stdio']),
    memory: nodeEntry(publishedEntry('server-memory'), [], { env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } }),
    files: nodeEntry(publishedEntry('server-filesystem'), [dir]),
    recorder: nodeEntry(fixturePath('upstreams/recorder.mjs'), [], { env: { RECORD_FILE: recordFile }, deny: ['secret'] }),
  });
  server = await startInProcess(['--config', config]);
  server.client.setNotificationHandler('notifications/tools/list_changed', () => void listChanges.push(Date.now()));
});

afterAll(async () => {
  expect(await server.close()).toEqual([]);
});

describe('several upstreams behind one code_execution', () => {
  test('tools are named <server>__<tool>, and a denied one is not named to the model', async () => {
    // 49 callable tools (17 + 9 + 14 + 9, the recorder's secret denied): the description names every server, and as many tools as fit in 2,048 characters.
    const [tool] = (await server.client.listTools()).tools;
    expect(tool!.description!.length).toBeLessThanOrEqual(2_048);
    expect(tool!.description).toContain('Tools of 4 servers; call one as tools["<server>__<tool>"]:');
    for (const [server, count] of [
      ['everything', 17],
      ['memory', 9],
      ['files', 14],
      ['recorder', 9],
    ] as const) {
      expect(tool!.description).toMatch(new RegExp(`\\n${server} \\(${count} tools`));
    }
    // Under each server's header its tools by their own names (as many as the description has room for).
    for (const server of ['everything', 'memory', 'files', 'recorder']) {
      const listed = new RegExp(`\\n${server} \\(\\d+ tools[^\\n]*\\n([^\\n]+)`).exec(tool!.description!)?.[1];
      expect(listed, server).toMatch(/^[\w-]+[,:]/);
      expect(listed).not.toContain('__');
    }
    expect(tool!.description).not.toContain('secret');
    const names = valueOf(await server.run({ code: 'return ALL_TOOLS.map((tool) => tool.name)' })) as string[];
    expect(names).toEqual(
      expect.arrayContaining(['everything__echo', 'memory__read_graph', 'files__list_directory', 'recorder__echo']),
    );
    expect(names).not.toContain('recorder__secret');
  });

  test('one script makes 50 parallel echo calls, reads a file and round-trips the memory graph', async () => {
    const code = `
      const echoes = await Promise.all(Array.from({ length: 50 }, (_, i) => tools["everything__echo"]({ message: "m" + i })));
      const file = await tools["files__read_text_file"]({ path: ${JSON.stringify(join(dir, 'notes.txt'))} });
      await tools["memory__create_entities"]({ entities: [{ name: "milk", entityType: "errand", observations: ["from notes.txt"] }] });
      const graph = await tools["memory__read_graph"]({});
      return { echoes: echoes.map((r) => r.content[0].text), file: file.content[0].text, entities: graph.structuredContent.entities.map((e) => e.name) };
    `;
    const result = await server.run({ code });
    expect(result.isError).toBe(false);
    const value = valueOf(result) as { echoes: string[]; file: string; entities: string[] };
    expect(value.echoes).toHaveLength(50);
    expect(value.echoes[0]).toBe('Echo: m0');
    expect(value.echoes[49]).toBe('Echo: m49');
    expect(value.file).toBe('remember the milk\n');
    expect(value.entities).toEqual(['milk']);
    expect(result.structuredContent).toMatchObject({ calls: { answered: 53 } });
  });

  test('a script calling a denied tool gets ToolRefused, and the upstream never sees the call', async () => {
    const result = await server.run({
      code: 'try { await tools["recorder__secret"]({}); return "ran" } catch (e) { return { name: e.name, message: e.message } }',
    });
    const value = valueOf(result) as { name: string; message: string };
    expect(value.name).toBe('ToolRefused');
    expect(value.message).toContain('TOOL_DENIED');
    await server.run({ code: 'return (await tools["recorder__echo"]({ text: "after" })).content[0].text' });
    const calls = readRecord(recordFile).filter((entry) => entry.event === 'call');
    expect(calls.map((entry) => entry.tool)).toEqual(['echo']);
  });

  test("an upstream's tool list change reaches the client as tools/list_changed, with the new count in the description", async () => {
    const before = listChanges.length;
    const countOf = async (): Promise<number> =>
      Number(/\nrecorder \((\d+) tools/.exec((await server.client.listTools()).tools[0]!.description!)![1]);
    const count = await countOf();
    await server.run({ code: 'return (await tools["recorder__add-tool"]({ name: "fresh" })).content[0].text' });
    await until(() => listChanges.length > before);
    expect(await countOf()).toBe(count + 1);
    const value = valueOf(await server.run({ code: 'return (await tools["recorder__fresh"]({})).content[0].text' }));
    expect(value).toBe('fresh');
  });

  test("an upstream's log messages reach the client as logging notifications named for it", async () => {
    await server.run({ code: 'return (await tools["recorder__progress"]({ steps: 2 })).content[0].text' });
    await until(() => server.logs.some((log) => log.logger === 'recorder'));
    expect(server.logs.find((log) => log.logger === 'recorder')).toMatchObject({ level: 'info', data: { steps: 2 } });
  });

  test('an upstream that dies mid-call fails that call clearly, the others keep serving, and it is back for the next script', async () => {
    const code = `
      const [died, sum] = await Promise.all([tools["recorder__die"]({}), tools["everything__get-sum"]({ a: 1, b: 2 })]);
      return { died: { isError: died.isError, text: died.content[0].text }, sum: sum.content[0].text };
    `;
    const result = await server.run({ code });
    const value = valueOf(result) as { died: { isError: boolean; text: string }; sum: string };
    expect(value.died.isError).toBe(true);
    expect(value.died.text).toMatch(
      /upstream recorder exited while the call to recorder__die was in flight; the call may have taken effect/,
    );
    expect(value.sum).toContain('3');

    await until(() => server.stderr().includes('upstream "recorder" is up again'));
    const again = await server.run({ code: 'return (await tools["recorder__echo"]({ text: "back" })).content[0].text' });
    expect(valueOf(again)).toBe('back');
    const starts = readRecord(recordFile).filter((entry) => entry.event === 'start');
    expect(starts).toHaveLength(2);
  });
});
