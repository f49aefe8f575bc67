// An exposed tool or prompt whose upstream speaks 2026-07-28 (the conformance fixture with
// --current-revision), called directly by a client pinned to 2026-07-28 (the SDK 2.x client): the
// upstream's own input_required reaches the client unchanged (its keys, its requests), with a
// requestState of ours wrapping the upstream's, and the client's retry reaches the upstream, round
// after round. Over stdio and HTTP, by hand (allowInputRequired: the rounds as they come) and as
// the SDK's client makes them itself.
import { LOG_LEVEL_META_KEY, type Client, type ClientCapabilities } from '@modelcontextprotocol/client';
import * as z from 'zod';
import { afterAll, describe, expect, test } from 'vitest';
import { connectHttp } from '../support/http-server.js';
import { startInProcessHttp, type InProcessHttpServer } from '../support/in-process-http.js';
import { fixturePath, textOf } from '../support/mcp-client.js';
import { startInProcess } from '../support/in-process-server.js';
import { eventually } from '../support/waiting.js';

const modern = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
const fixture = fixturePath('upstreams/conformance-everything.mjs');
const currentUpstream = ['--pool', '0', '--expose', '*', '--', process.execPath, fixture, '--current-revision'];
const ALL: ClientCapabilities = { elicitation: { form: {} }, sampling: {}, roots: {} };
const ANY = z.unknown();

const servers: InProcessHttpServer[] = [];
afterAll(async () => {
  for (const server of servers) expect((await server.stop()).left).toEqual([]);
});

interface Connected {
  readonly client: Client;
  readonly logs: readonly unknown[];
  readonly close: () => Promise<void>;
}

async function connect(transport: string, args: readonly string[], capabilities: ClientCapabilities = ALL): Promise<Connected> {
  const onElicit = () => ({ action: 'accept' as const, content: { name: 'Ada', color: 'red' } });
  const setup = { capabilities, ...(capabilities.elicitation !== undefined ? { onElicit } : {}), ...modern };
  if (transport === 'stdio') {
    const server = await startInProcess(args, setup);
    return { client: server.client, logs: server.logs, close: async () => expect(await server.close()).toEqual([]) };
  }
  const server = await startInProcessHttp(args);
  servers.push(server);
  const client = await connectHttp(server.url, setup);
  return { client: client.client, logs: client.logs, close: () => client.close() };
}

/** One round by hand: the answer as it came, input_required included. */
async function round(client: Client, method: 'tools/call' | 'prompts/get', params: Record<string, unknown>) {
  return (await client.request({ method, params } as never, ANY, { allowInputRequired: true })) as {
    resultType?: string;
    inputRequests?: Record<string, unknown>;
    requestState?: string;
    content?: Array<{ text?: string }>;
    messages?: Array<{ content: { text?: string } }>;
  };
}

/** A call's rejection, as the SDK gives it. */
async function refusal(call: Promise<unknown>): Promise<{ code?: number; message: string; data?: unknown }> {
  return call.then(
    () => ({ message: 'no refusal: it answered' }),
    (error: { code?: number; message: string; data?: unknown }) => error,
  );
}

const NAME_REQUEST = {
  method: 'elicitation/create',
  params: {
    message: 'What is your name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
};
const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });

describe.each(['stdio', 'HTTP'])('over %s, an upstream in 2026-07-28', (transport) => {
  test("its input_required reaches the client with the upstream's keys and requests, and the retry its answer", async () => {
    const { client, close } = await connect(transport, currentUpstream);
    const call = { name: 'test_input_required_result_elicitation', arguments: {} };
    const first = await round(client, 'tools/call', call);
    expect(first).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
    expect(first.inputRequests).toEqual({ user_name: NAME_REQUEST });
    const done = await round(client, 'tools/call', {
      ...call,
      inputResponses: { user_name: accept({ name: 'Ada' }) },
      requestState: first.requestState,
    });
    expect(done.content?.[0]?.text).toBe('Hello, Ada!');
    await close();
  });

  test('two rounds: each its own keys and requestState, and the upstream sees both answers', async () => {
    const { client, close } = await connect(transport, currentUpstream);
    const call = { name: 'test_input_required_result_multi_round', arguments: {} };
    const first = await round(client, 'tools/call', call);
    expect(Object.keys(first.inputRequests ?? {})).toEqual(['step1']);
    const second = await round(client, 'tools/call', {
      ...call,
      inputResponses: { step1: accept({ name: 'Ada' }) },
      requestState: first.requestState,
    });
    expect(second).toMatchObject({ resultType: 'input_required', inputRequests: { step2: expect.any(Object) } });
    expect(second.requestState).not.toBe(first.requestState);
    const done = await round(client, 'tools/call', {
      ...call,
      inputResponses: { step2: accept({ color: 'red' }) },
      requestState: second.requestState,
    });
    expect(done.content?.[0]?.text).toBe('Ada likes red');
    // The SDK's client makes the same rounds itself, through its elicitation handler.
    const made = await client.callTool(call);
    expect(textOf(made as never)).toBe('Ada likes red');
    await close();
  });

  test("a tampered requestState is -32602, and one of another tool's call -32602 naming that tool", async () => {
    const { client, close } = await connect(transport, currentUpstream);
    const call = { name: 'test_input_required_result_elicitation', arguments: {} };
    const first = await round(client, 'tools/call', call);
    expect(Object.keys(first.inputRequests ?? {})).toEqual(['user_name']);
    const inputResponses = { user_name: accept({ name: 'Ada' }) };
    const tampered = await refusal(
      round(client, 'tools/call', { ...call, inputResponses, requestState: `${first.requestState}x` }),
    );
    expect(tampered.code).toBe(-32602);
    const other = { name: 'test_input_required_result_request_state', arguments: {} };
    const foreign = await refusal(round(client, 'tools/call', { ...other, inputResponses, requestState: first.requestState }));
    expect(foreign).toMatchObject({
      code: -32602,
      message: expect.stringContaining('for a call of test_input_required_result_elicitation'),
    });
    await close();
  });

  test('the upstream is told what the client can answer, and what it asks beyond that is -32021', async () => {
    const { client, close } = await connect(transport, currentUpstream, { sampling: {} });
    const asked = await round(client, 'tools/call', { name: 'test_input_required_result_capabilities', arguments: {} });
    expect(Object.keys(asked.inputRequests ?? {})).toEqual(['capital_question']);
    const missing = await refusal(round(client, 'tools/call', { name: 'test_input_required_result_elicitation', arguments: {} }));
    expect(missing).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: expect.any(Object) } } });
    await close();
  });

  test("a prompt's input_required passes through, and its retry gets the prompt", async () => {
    const { client, close } = await connect(transport, currentUpstream);
    const get = { name: 'test_input_required_result_prompt' };
    const first = await round(client, 'prompts/get', get);
    expect(Object.keys(first.inputRequests ?? {})).toEqual(['user_context']);
    const done = await round(client, 'prompts/get', {
      ...get,
      inputResponses: { user_context: accept({ context: 'tea' }) },
      requestState: first.requestState,
    });
    expect(done.messages?.[0]?.content.text).toBe('Use this context: tea');
    await close();
  });
});

describe('a 2025 client, an upstream in 2026-07-28', () => {
  test("gets the upstream's input_required as a server-to-client request, and its answer reaches the upstream", async () => {
    const asked: string[] = [];
    const server = await startInProcess(currentUpstream, {
      capabilities: { elicitation: { form: {} } },
      onElicit: (request) => {
        asked.push((request.params as { message: string }).message);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
    const result = await server.client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
    expect(asked).toEqual(['What is your name?']);
    expect(textOf(result as never)).toBe('Hello, Ada!');
    expect(await server.close()).toEqual([]);
  });
});

describe.each(['stdio', 'HTTP'])("over %s, an upstream's log messages", (transport) => {
  // The bug: they went out on a 2026-07-28 call that named no logLevel.
  test('reach a 2026-07-28 client only on a call that asked for them (logLevel)', async () => {
    const upstream = ['--pool', '0', '--', process.execPath, fixture];
    const { client, logs, close } = await connect(transport, upstream);
    const code = 'return (await tools["test_logging_tool"]({})).content[0].text';
    const run = (meta: Record<string, unknown>) => client.callTool({ name: 'code_execution', arguments: { code }, _meta: meta });
    await run({});
    expect(logs).toEqual([]);
    await run({ [LOG_LEVEL_META_KEY]: 'info' });
    expect(logs).toEqual([
      expect.objectContaining({ level: 'info', data: 'Tool execution started' }),
      expect.objectContaining({ level: 'info', data: 'Tool execution completed' }),
    ]);
    await close();
  });
});

describe('an upstream in 2026-07-28 that logs as that revision says (only on a request that names a level)', () => {
  // The bug: a call to it named no level, so it logged nothing, and no client ever got its log messages.
  test("its log messages reach a 2025 session that set its level, from a script's call and an exposed call alike", async () => {
    const server = await startInProcess(['--pool', '0', '--expose', 'test_tool_with_logging', ...currentUpstream.slice(2)]);
    await server.client.setLoggingLevel('info');
    const said = () => server.logs.map((log) => log.data).filter((data) => typeof data === 'string' && data.startsWith('Tool '));
    const three = ['Tool execution started', 'Tool processing data', 'Tool execution completed'];
    await server.run({ code: 'return (await tools["test_tool_with_logging"]({})).content[0].text' });
    await eventually(() => expect(said()).toEqual(three));
    await server.client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    await eventually(() => expect(said()).toEqual([...three, ...three]));
    expect(await server.close()).toEqual([]);
  });
});
