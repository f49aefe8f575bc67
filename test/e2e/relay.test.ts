import { mkdirSync, realpathSync } from 'node:fs';

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CreateMessageRequest, ElicitRequest } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eventually, fixturePath, nodeEntry, publishedEntry, valueOf, writeConfig } from '../support/mcp-client.js';
import { startInProcess, type InProcessServer } from '../support/in-process-server.js';
import { makeTempDir } from '../support/temp-dirs.js';

// The recorder's "ask" tool calls elicitInput inside its tool, and "roots" lists the client's roots.
// No pool: what is checked is what is relayed; each run makes its child.
const recorder = ['--pool', '0', '--', process.execPath, fixturePath('upstreams/recorder.mjs')];

describe('an upstream asks the client during a script call', () => {
  let server: InProcessServer;
  const asked: ElicitRequest['params'][] = [];

  beforeAll(async () => {
    server = await startInProcess(recorder, {
      capabilities: { elicitation: { form: {} }, roots: {} },
      onElicit: (request) => {
        asked.push(request.params);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
    server.client.setRequestHandler('roots/list', () => ({ roots: [{ uri: 'file:///srv/project', name: 'project' }] }));
  });

  afterAll(async () => {
    expect(await server.close()).toEqual([]);
  });

  test("an elicitation reaches the client, and the client's answer gets back to the upstream", async () => {
    const result = await server.run({ code: 'return JSON.parse((await tools["ask"]({})).content[0].text)' });
    expect(asked).toEqual([expect.objectContaining({ message: 'Your name?' })]);
    expect(valueOf(result)).toEqual({ action: 'accept', content: { name: 'Ada' } });
  });

  test("a roots/list from the upstream is answered with the client's roots", async () => {
    const result = await server.run({ code: 'return JSON.parse((await tools["roots"]({})).content[0].text)' });
    expect(valueOf(result)).toEqual({ roots: [{ uri: 'file:///srv/project', name: 'project' }] });
  });
});

describe('a client without the capability', () => {
  let server: InProcessServer;

  beforeAll(async () => {
    server = await startInProcess(recorder);
  });

  afterAll(async () => {
    expect(await server.close()).toEqual([]);
  });

  test('the upstream is told clearly that the client cannot answer, and the script sees its error', async () => {
    const result = await server.run({
      code: 'const r = await tools["ask"]({}); return { isError: r.isError, text: r.content[0].text }',
    });
    const value = valueOf(result) as { isError: boolean; text: string };
    expect(value.isError).toBe(true);
    expect(value.text).toContain(
      'codemode-mcp cannot relay elicitation/create from upstream "recorder": the MCP client "e2e-client 1.0.0" did not declare the elicitation capability',
    );
  });
});

describe('sampling and roots from npm servers (server-everything is built on SDK 1.x)', () => {
  let server: InProcessServer;
  const sampled: CreateMessageRequest['params'][] = [];
  const dir = realpathSync(makeTempDir('e2e-roots'));
  const [fromArgs, first, second] = ['from-args', 'first', 'second'].map((name) => join(dir, name));
  let roots = [{ uri: pathToFileURL(first!).href, name: 'first' }];

  beforeAll(async () => {
    for (const path of [fromArgs!, first!, second!]) mkdirSync(path);
    const config = writeConfig({
      everything: nodeEntry(publishedEntry('server-everything'), ['stdio']),
      files: nodeEntry(publishedEntry('server-filesystem'), [fromArgs!]),
    });
    server = await startInProcess(['--config', config, '--pool', '0'], {
      capabilities: { sampling: {}, roots: { listChanged: true } },
    });
    server.client.setRequestHandler('sampling/createMessage', (request) => {
      sampled.push(request.params);
      return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'a sampled answer' } };
    });
    server.client.setRequestHandler('roots/list', () => ({ roots }));
  });

  afterAll(async () => {
    expect(await server.close()).toEqual([]);
  });

  const allowedDirectories = async (): Promise<unknown> =>
    valueOf(await server.run({ code: 'return (await tools["files__list_allowed_directories"]({})).content[0].text' }));

  test("a sampling request reaches the client and the client's message gets back to the tool", async () => {
    const result = await server.run({
      code: 'return (await tools["everything__trigger-sampling-request"]({ prompt: "say hi", maxTokens: 20 })).content[0].text',
    });
    expect(sampled).toEqual([expect.objectContaining({ maxTokens: 20 })]);
    expect(valueOf(result)).toContain('a sampled answer');
  });

  test("server-filesystem takes the client's roots at its start, and follows the client's roots change", async () => {
    expect(await allowedDirectories()).toBe(`Allowed directories:\n${first}`);
    roots = [{ uri: pathToFileURL(second!).href, name: 'second' }];
    await server.client.sendRootsListChanged();
    await eventually(async () => expect(await allowedDirectories()).toBe(`Allowed directories:\n${second}`));
  });
});
