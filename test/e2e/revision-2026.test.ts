// The same scripts, relays, resources and prompts for a client of either protocol revision, over
// stdio and over HTTP: a 2025 client (initialize; a session over HTTP) and an SDK 2.x client
// pinned to 2026-07-28 (server/discover, the per-request envelope, no session, input_required
// for an upstream's elicitation).
import type { CallToolResult, Client, ClientOptions, ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectHttp } from '../support/http-server.js';
import { startInProcessHttp, type InProcessHttpServer } from '../support/in-process-http.js';
import { fixturePath, structuredOf, textOf, valueOf } from '../support/mcp-client.js';
import { startInProcess } from '../support/in-process-server.js';

const upstream = ['--pool', '0', '--', process.execPath, fixturePath('upstreams/conformance-everything.mjs')];

interface Answer {
  script: string;
  status: string;
}
const answerOf = (result: CallToolResult): Answer => structuredOf(result) as unknown as Answer;

type Negotiation = ClientOptions['versionNegotiation'];

interface Connected {
  readonly client: Client;
  run(args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

interface ClientSetup {
  readonly capabilities: { elicitation: { form: Record<string, never> } };
  readonly onElicit: (request: ElicitRequest) => ElicitResult;
  readonly versionNegotiation?: Negotiation;
}

/** Over stdio: a server process of the client's own, which must leave nothing behind. */
async function overStdio(setup: ClientSetup): Promise<Connected> {
  const server = await startInProcess(upstream, setup);
  return {
    client: server.client,
    run: (args) => server.run(args),
    close: async () => expect(await server.close()).toEqual([]),
  };
}

let httpServer: InProcessHttpServer | undefined;

/** Over HTTP: one server for the file's HTTP clients. */
async function overHttp(setup: ClientSetup): Promise<Connected> {
  httpServer ??= await startInProcessHttp(upstream);
  return connectHttp(httpServer.url, setup);
}

afterAll(async () => {
  if (httpServer !== undefined) expect((await httpServer.stop()).left).toEqual([]);
});

const cases: Array<[string, string, (setup: ClientSetup) => Promise<Connected>, Negotiation | undefined]> = [
  ['2025-11-25', 'stdio', overStdio, undefined],
  ['2026-07-28', 'stdio', overStdio, { mode: { pin: '2026-07-28' } }],
  ['2025-11-25', 'HTTP', overHttp, undefined],
  ['2026-07-28', 'HTTP', overHttp, { mode: { pin: '2026-07-28' } }],
];

describe.each(cases)('a client speaking %s over %s', (revision, _transport, connect, versionNegotiation) => {
  let server: Connected;
  const asked: ElicitRequest['params'][] = [];

  beforeAll(async () => {
    server = await connect({
      capabilities: { elicitation: { form: {} } },
      onElicit: (request) => {
        asked.push(request.params);
        return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
      },
      ...(versionNegotiation !== undefined ? { versionNegotiation } : {}),
    });
  });

  afterAll(async () => {
    await server.close();
  });

  test('the connection speaks the revision asked for', () => {
    expect(server.client.getNegotiatedProtocolVersion()).toBe(revision);
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

describe('a 2026-07-28 request over HTTP, by hand', () => {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'by-hand', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const post = async (body: Record<string, unknown>, headers: Record<string, string>) => {
    httpServer ??= await startInProcessHttp(upstream);
    const response = await fetch(httpServer.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2026-07-28',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, ...body }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const call = (args: Record<string, unknown>) => ({
    method: 'tools/call',
    params: { name: 'code_execution', arguments: args, _meta: envelope },
  });

  test('a requestState tampered with, or sent again once answered, is refused; the answer given once reaches the upstream', async () => {
    const withElicitation = { ...envelope, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };
    const headers = { 'Mcp-Method': 'tools/call', 'Mcp-Name': 'code_execution' };
    const run = (extra: Record<string, unknown>) =>
      post(
        {
          method: 'tools/call',
          params: {
            name: 'code_execution',
            arguments: { code: 'return (await tools["test_elicitation"]({ message: "Name?" })).content[0].text' },
            _meta: withElicitation,
            ...extra,
          },
        },
        headers,
      );
    const asked = await run({});
    const first = asked.body.result as { resultType: string; requestState: string; inputRequests: Record<string, unknown> };
    expect(first.resultType).toBe('input_required');
    const [key] = Object.keys(first.inputRequests);
    expect(first.inputRequests[key!]).toMatchObject({ method: 'elicitation/create', params: { message: 'Name?' } });
    const answer = { inputResponses: { [key!]: { action: 'accept', content: { username: 'ada', email: 'a@b.c' } } } };
    const tampered = await run({ ...answer, requestState: `${first.requestState.slice(0, -4)}AAAA` });
    expect(tampered.body).toMatchObject({ error: { code: -32602, message: 'Invalid or expired requestState' } });
    const answered = await run({ ...answer, requestState: first.requestState });
    expect(JSON.stringify(answered.body.result)).toContain('User response: action=accept');
    const replayed = await run({ ...answer, requestState: first.requestState });
    expect(replayed.body).toMatchObject({
      error: { code: -32602, message: expect.stringContaining('requestState names requests already answered') },
    });
  });

  test("code_execution's script parameter is marked to travel as the Mcp-Param-Script header; lists say how long they keep", async () => {
    const { body } = await post({ method: 'tools/list', params: { _meta: envelope } }, { 'Mcp-Method': 'tools/list' });
    const result = body.result as { tools: Array<{ name: string; inputSchema: { properties: Record<string, object> } }> };
    expect(result).toMatchObject({ ttlMs: 60_000, cacheScope: 'private' });
    const codeExecution = result.tools.find((tool) => tool.name === 'code_execution')!;
    expect(codeExecution.inputSchema.properties.script).toMatchObject({ type: 'string', 'x-mcp-header': 'Script' });
  });

  test('a script id in the header and another in the body is refused with -32020, as one missing from either', async () => {
    const headers = { 'Mcp-Method': 'tools/call', 'Mcp-Name': 'code_execution' };
    const mismatched = await post(call({ action: 'wait', script: 'abc-1' }), { ...headers, 'Mcp-Param-Script': 'abc-2' });
    expect(mismatched.status).toBe(400);
    expect(mismatched.body).toMatchObject({
      id: 7,
      error: { code: -32020, message: expect.stringContaining("the body's script and the Mcp-Param-Script header disagree") },
    });
    const missing = await post(call({ action: 'wait', script: 'abc-1' }), headers);
    expect(missing.body).toMatchObject({ error: { code: -32020, message: expect.stringContaining('header is missing') } });
    const matching = await post(call({ action: 'wait', script: 'abc-1' }), { ...headers, 'Mcp-Param-Script': 'abc-1' });
    expect(matching.status).toBe(200);
    expect(JSON.stringify(matching.body)).toContain('no script \\"abc-1\\" of principal shared');
  });
});
