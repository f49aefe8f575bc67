import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { connectHttp } from '../support/http-server.js';
import { startInProcessHttp, type InProcessHttpServer } from '../support/in-process-http.js';
import { fixturePath, nodeEntry, writeConfig } from '../support/mcp-client.js';
import { startInProcess, type InProcessServer } from '../support/in-process-server.js';
import { rejection } from '../support/rejection.js';

// Regression: a prompt name that wasn't listed ("P", "p ", "p-anything") was forwarded, and an
// upstream that matches names loosely answered it, so a `prompts` deny rule was bypassed. Every
// name or URI our client sends is matched exactly against what is listed and allowed first.
// No script runs here (a tools/call of a name that isn't listed is refused before one): no pool.
const LENIENT = fixturePath('upstreams/lenient-names.mjs');
const config = () =>
  writeConfig({
    lenient: nodeEntry(LENIENT, [], { prompts: { deny: ['secret'] }, resources: { deny: ['test://secret'] } }),
    other: nodeEntry(LENIENT),
  });

/** Names that differ from a listed one in case, by spaces, or by what follows; and one of 100,000 characters, each with a label. */
const variants = (listed: string): [string, string][] => [
  [`${listed} in capitals`, listed.toUpperCase()],
  [`${listed} capitalised`, `${listed[0]!.toUpperCase()}${listed.slice(1)}`],
  [`${listed} with a trailing space`, `${listed} `],
  [`${listed} with a leading space`, ` ${listed}`],
  [`${listed} with a newline`, `${listed}\n`],
  [`${listed} with an unknown suffix`, `${listed}-anything`],
  [`${listed} and 100,000 characters`, `${listed}${'x'.repeat(100_000)}`],
];

function checksNames(client: () => Client) {
  test.each(variants('lenient__public'))('prompts/get of %s, not listed, is -32602 Unknown prompt', async (_label, name) => {
    const error = await rejection(client().getPrompt({ name }));
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/^Unknown prompt "/);
    expect(error.message.length).toBeLessThan(1_000);
  });

  test.each(variants('lenient__secret'))('prompts/get of %s can not reach the denied prompt', async (_label, name) => {
    const error = await rejection(client().getPrompt({ name }));
    expect(error.code).toBe(-32602);
    expect(error.message).not.toContain('the secret prompt');
  });

  test('an unknown prompt that differs only in case names the listed one', async () => {
    const error = await rejection(client().getPrompt({ name: 'lenient__Public' }));
    expect(error.message).toContain('Unknown prompt "lenient__Public"; did you mean "lenient__public"?');
  });

  test('a listed, allowed prompt is still got, and the denied one still refused by policy', async () => {
    const prompt = await client().getPrompt({ name: 'lenient__public' });
    expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'the public prompt' });
    const denied = await rejection(client().getPrompt({ name: 'lenient__secret' }));
    expect(denied.message).toContain(`the config's "prompts" policy for upstream "lenient" leaves it out`);
  });

  test.each([...variants('lenient__public'), ...variants('lenient__secret')])(
    'completion/complete for prompt %s, not listed, is -32602',
    async (_label, name) => {
      const error = await rejection(client().complete({ ref: { type: 'ref/prompt', name }, argument: { name: 'x', value: '' } }));
      expect(error.code).toBe(-32602);
    },
  );

  test.each([...variants('test://public'), ...variants('test://secret')])(
    'resources/read of %s, not listed, is resource not found',
    async (_label, uri) => {
      const error = await rejection(client().readResource({ uri }));
      expect(error.message).toContain('Resource not found');
    },
  );

  test.each(variants('code_execution'))('tools/call of %s is Unknown tool', async (_label, name) => {
    const error = await rejection(client().callTool({ name, arguments: { code: 'return 1' } }));
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/Unknown tool/);
    expect(error.message.length).toBeLessThan(1_000);
  });

  test('a tool name that differs only in case names the one it is close to', async () => {
    const error = await rejection(client().callTool({ name: 'Code_Execution', arguments: { code: 'return 1' } }));
    expect(error.message).toContain('Unknown tool "Code_Execution"; did you mean "code_execution"?');
  });
}

describe('over stdio', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await startInProcess(['--config', config(), '--pool', '0']);
  });
  afterAll(async () => {
    expect(await server.close()).toEqual([]);
  });
  checksNames(() => server.client);
});

describe('over HTTP', () => {
  let server: InProcessHttpServer;
  let client: Awaited<ReturnType<typeof connectHttp>>;
  beforeAll(async () => {
    server = await startInProcessHttp(['--config', config(), '--pool', '0']);
    client = await connectHttp(server.url);
  });
  afterAll(async () => {
    await client.close();
    expect((await server.stop()).left).toEqual([]);
  });
  checksNames(() => client.client);
});
