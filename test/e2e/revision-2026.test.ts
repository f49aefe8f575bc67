// The same scripts, relays, resources and prompts for a client of either protocol revision over
// stdio: a 2025 client (initialize) and an SDK 2.x client pinned to 2026-07-28 (server/discover,
// the per-request envelope, input_required for an upstream's elicitation).
import type { CallToolResult, ClientOptions, ElicitRequest } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fixturePath, startServer, structuredOf, textOf, valueOf, type RunningServer } from '../support/mcp-client.js';

const upstream = ['--pool', '0', '--', process.execPath, fixturePath('upstreams/conformance-everything.mjs')];

interface Answer {
  script: string;
  status: string;
}
const answerOf = (result: CallToolResult): Answer => structuredOf(result) as unknown as Answer;

const revisions: Array<[string, ClientOptions['versionNegotiation'] | undefined]> = [
  ['2025-11-25', undefined],
  ['2026-07-28', { mode: { pin: '2026-07-28' } }],
];

describe.each(revisions)('a client speaking %s over stdio', (revision, versionNegotiation) => {
  let server: RunningServer;
  const asked: ElicitRequest['params'][] = [];

  beforeAll(async () => {
    server = await startServer(upstream, {
      capabilities: { elicitation: { form: {} } },
      onElicit: (request) => {
        asked.push(request.params);
        return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
      },
      ...(versionNegotiation !== undefined ? { versionNegotiation } : {}),
    });
  });

  afterAll(async () => {
    expect(await server.close()).toEqual([]);
  });

  test('the connection speaks the revision asked for', () => {
    const version = (
      server.client as unknown as { getNegotiatedProtocolVersion?: () => string | undefined }
    ).getNegotiatedProtocolVersion?.();
    expect(version).toBe(revision);
  });

  test('runs, waits on, stops and lists scripts', async () => {
    const finished = await server.run({ code: 'return 6 * 7' });
    expect(valueOf(finished)).toBe(42);
    const spinning = answerOf(await server.run({ code: 'console.log("spinning"); while (true) {}', yield_ms: 100 }));
    expect(spinning.status).toBe('running');
    const waited = answerOf(await server.run({ action: 'wait', script: spinning.script, yield_ms: 100 }));
    expect(waited).toMatchObject({ script: spinning.script, status: 'running' });
    const stopped = answerOf(await server.run({ action: 'stop', script: spinning.script }));
    expect(stopped).toMatchObject({ script: spinning.script, status: 'stopped' });
    const listed = structuredOf(await server.run({ action: 'list' })).scripts as Array<{ id: string; status: string }>;
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: answerOf(finished).script, status: 'finished' }),
        expect.objectContaining({ id: spinning.script, status: 'stopped' }),
      ]),
    );
  });

  test("an upstream's elicitation in the middle of a script reaches the client, and its answer the upstream", async () => {
    asked.length = 0;
    const result = await server.run({
      code: 'const r = await tools["test_elicitation"]({ message: "Who are you?" }); return r.content[0].text',
    });
    expect(asked).toEqual([expect.objectContaining({ message: 'Who are you?' })]);
    expect(valueOf(result)).toBe('User response: action=accept, content={"username":"ada","email":"ada@example.com"}');
  });

  test('reads resources and gets prompts', async () => {
    const { resources } = await server.client.listResources();
    expect(resources.map((resource) => resource.uri)).toContain('test://static-text');
    const read = await server.client.readResource({ uri: 'test://static-text' });
    expect(read.contents).toEqual([expect.objectContaining({ text: 'This is the content of the static text resource.' })]);
    const { prompts } = await server.client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toContain('test_simple_prompt');
    const prompt = await server.client.getPrompt({ name: 'test_simple_prompt' });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }]);
  });

  test('an unknown tool is refused naming what there is', async () => {
    await expect(server.client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(/Unknown tool "nope"/);
    expect(textOf(await server.run({ code: 'return 1' }))).toContain('finished');
  });
});
