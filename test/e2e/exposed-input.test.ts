// An exposed upstream tool called directly by a 2026-07-28 client, whose upstream asks the person
// something mid-call (an elicitation): the call answers input_required with the request, the
// client's retry brings the answer to the upstream, and the retry answers with the tool's result.
// Over stdio and HTTP, with the SDK's own 2026-07-28 client, which makes the retry itself.
import type { ElicitRequest } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, test } from 'vitest';
import { connectHttp } from '../support/http-server.js';
import { startInProcessHttp, type InProcessHttpServer } from '../support/in-process-http.js';
import { fixturePath, textOf } from '../support/mcp-client.js';
import { startInProcess } from '../support/in-process-server.js';
import { TasksClient, resultOf } from '../support/tasks-client.js';

const upstream = [
  '--pool',
  '0',
  '--expose',
  'test_elicitation',
  '--',
  process.execPath,
  fixturePath('upstreams/conformance-everything.mjs'),
];
const modern = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;

let httpServer: InProcessHttpServer | undefined;
afterAll(async () => {
  if (httpServer !== undefined) expect((await httpServer.stop()).left).toEqual([]);
});

interface Caller {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

async function connect(
  transport: string,
  onElicit: (request: ElicitRequest) => { action: 'accept'; content: Record<string, string> },
): Promise<Caller> {
  const setup = { capabilities: { elicitation: { form: {} } }, onElicit, ...modern };
  if (transport === 'stdio') {
    const server = await startInProcess(upstream, setup);
    return { callTool: (params) => server.client.callTool(params), close: async () => expect(await server.close()).toEqual([]) };
  }
  httpServer ??= await startInProcessHttp(upstream);
  const client = await connectHttp(httpServer.url, setup);
  return { callTool: (params) => client.client.callTool(params), close: () => client.close() };
}

describe.each(['stdio', 'HTTP'])('over %s', (transport) => {
  test("the upstream's question reaches the client as input_required, and the answer the upstream", async () => {
    const asked: string[] = [];
    const caller = await connect(transport, (request) => {
      asked.push((request.params as { message: string }).message);
      return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
    });
    const result = await caller.callTool({ name: 'test_elicitation', arguments: { message: 'Your name?' } });
    expect(asked).toEqual(['Your name?']);
    expect(textOf(result as never)).toBe('User response: action=accept, content={"username":"ada","email":"ada@example.com"}');
    await caller.close();
  });
});

describe('by hand over HTTP', () => {
  test('a retry sent twice, or with a requestState of another tool, is refused with -32602 saying what to do', async () => {
    httpServer ??= await startInProcessHttp(upstream);
    const client = new TasksClient(httpServer.url, { tasks: false, capabilities: { elicitation: { form: {} } } });
    const call = (extra: Record<string, unknown> = {}) =>
      client.request('tools/call', { name: 'test_elicitation', arguments: { message: 'Again?' }, ...extra });
    const first = resultOf(await call());
    expect(first).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
    const [key] = Object.keys(first.inputRequests as object);
    const answer = { inputResponses: { [key!]: { action: 'decline' } }, requestState: first.requestState };
    expect(JSON.stringify(resultOf(await call(answer)))).toContain('User response: action=decline');
    expect((await call(answer)).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('no longer waiting for these answers'),
    });
    const onScript = await client.request('tools/call', { name: 'code_execution', arguments: { code: 'return 1' }, ...answer });
    expect(onScript.error).toMatchObject({ code: -32602, message: expect.stringContaining('for a call of test_elicitation') });
  });
});

describe.each(['stdio', 'HTTP'])('over %s, a request the client did not declare it can answer', (transport) => {
  // It was refused to the upstream only, and the client got the upstream's failure, not the protocol's error.
  test('ends the call with -32021 naming the capability', async () => {
    const args = [
      '--pool',
      '0',
      '--expose',
      'test_sampling',
      '--',
      process.execPath,
      fixturePath('upstreams/conformance-everything.mjs'),
    ];
    const setup = { capabilities: { elicitation: { form: {} } }, ...modern };
    let client;
    let close: () => Promise<void>;
    if (transport === 'stdio') {
      const server = await startInProcess(args, setup);
      client = server.client;
      close = async () => expect(await server.close()).toEqual([]);
    } else {
      const server = await startInProcessHttp(args);
      const connected = await connectHttp(server.url, setup);
      client = connected.client;
      close = async () => {
        await connected.close();
        expect((await server.stop()).left).toEqual([]);
      };
    }
    const refused = await client
      .callTool({ name: 'test_sampling', arguments: { prompt: 'Hi?' } })
      .then(
        () => undefined,
        (error: unknown) => error,
      )
      .finally(close);
    expect(refused).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { sampling: {} } },
      message: expect.stringContaining('asked for sampling/createMessage'),
    });
  });
});
