// What an upstream asks for mid-call reaches the client whose call it serves, and only that call.
// First, a script's call (tools.x(...) in code_execution) of an upstream in 2026-07-28, which asks
// by answering input_required (conformance-everything.mjs --current-revision): an elicitation, a
// sampling, the roots, its own requestState, three requests at once, two rounds. codemode-mcp asks
// its caller's client each request as that script's own (a 2026-07-28 caller through input_required
// of ours, a 2025 session through server-to-client requests) and sends the answers back with the
// upstream's requestState as it came. Then, over HTTP, a 2026-07-28 caller whose exposed calls of
// an upstream in 2025 (server-to-client requests, which name no call) are left waiting on their
// questions: its next calls are not handed those questions.
import type { Client, ClientCapabilities, ElicitResult } from '@modelcontextprotocol/client';
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectHttp } from '../support/http-server.js';
import { startInProcessHttp, type InProcessHttpServer } from '../support/in-process-http.js';
import { fixturePath, textOf, valueOf } from '../support/mcp-client.js';
import { startInProcess, type InProcessServer } from '../support/in-process-server.js';

const fixture = fixturePath('upstreams/conformance-everything.mjs');
const currentUpstream = ['--pool', '0', '--', process.execPath, fixture, '--current-revision'];
const ALL: ClientCapabilities = { elicitation: { form: {} }, sampling: {}, roots: {} };
const modern = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
const ANY = z.unknown();

/** The client's answers: one form for every question, a model that says Paris, one root. */
function answerEverything(client: Client, asked: string[]): void {
  client.setRequestHandler('sampling/createMessage', () => {
    asked.push('sampling/createMessage');
    return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' };
  });
  client.setRequestHandler('roots/list', () => {
    asked.push('roots/list');
    return { roots: [{ uri: 'file:///work', name: 'work' }] };
  });
}
const onElicit =
  (asked: string[]) =>
  (request: { params: unknown }): ElicitResult => {
    asked.push(`elicitation/create: ${(request.params as { message: string }).message}`);
    return { action: 'accept', content: { name: 'Ada', color: 'red', ok: true } };
  };

const CASES = [
  ['an elicitation', 'test_input_required_result_elicitation', 'Hello, Ada!', ['elicitation/create: What is your name?']],
  ['a sampling', 'test_input_required_result_sampling', 'The model said: Paris', ['sampling/createMessage']],
  ['the roots', 'test_input_required_result_list_roots', 'Roots: file:///work', ['roots/list']],
  [
    'with its own requestState',
    'test_input_required_result_request_state',
    'state-ok: confirmed true',
    ['elicitation/create: Please confirm'],
  ],
  [
    'three requests at once',
    'test_input_required_result_multiple_inputs',
    'Hello, Ada: Paris (1 roots)',
    ['elicitation/create: What is your name?', 'roots/list', 'sampling/createMessage'],
  ],
  [
    'in two rounds',
    'test_input_required_result_multi_round',
    'Ada likes red',
    ['elicitation/create: Step 1: What is your name?', 'elicitation/create: Step 2: What is your favorite color?'],
  ],
] as const;

describe.each([
  ['a 2026-07-28 caller', modern],
  ['a 2025 session', {}],
])("a script's call of an upstream in 2026-07-28, for %s", (_who, revision) => {
  let server: InProcessServer;
  const asked: string[] = [];

  beforeAll(async () => {
    server = await startInProcess(currentUpstream, { capabilities: ALL, onElicit: onElicit(asked), ...revision });
    answerEverything(server.client, asked);
  });

  afterAll(async () => {
    expect(await server.close()).toEqual([]);
  });

  test.each(CASES)('that asks %s gets its answer from the client', async (_what, tool, answer, questions) => {
    asked.length = 0;
    const result = await server.run({ code: `return (await tools[${JSON.stringify(tool)}]({})).content[0].text` });
    expect(valueOf(result)).toBe(answer);
    expect([...asked].sort()).toEqual([...questions].sort());
  });
});

describe("a script's call of an upstream in 2026-07-28, by hand", () => {
  test('a retry with a tampered requestState is refused with -32602, and the real one gets the answer', async () => {
    const server = await startInProcess(currentUpstream, { capabilities: ALL, ...modern });
    const call = {
      name: 'code_execution',
      arguments: { code: 'return (await tools["test_input_required_result_elicitation"]({})).content[0].text' },
    };
    const first = (await server.client.request({ method: 'tools/call', params: call }, ANY, { allowInputRequired: true })) as {
      inputRequests: Record<string, { method: string }>;
      requestState: string;
    };
    const keys = Object.keys(first.inputRequests);
    expect(keys).toHaveLength(1);
    expect(first.inputRequests[keys[0]!]?.method).toBe('elicitation/create');
    const inputResponses = { [keys[0]!]: { action: 'accept', content: { name: 'Ada' } } };
    const tampered = await server.client
      .request({ method: 'tools/call', params: { ...call, inputResponses, requestState: `${first.requestState}x` } }, ANY)
      .then(
        () => ({ code: 0 }),
        (error: { code: number }) => error,
      );
    expect(tampered.code).toBe(-32602);
    const done = await server.client.request(
      { method: 'tools/call', params: { ...call, inputResponses, requestState: first.requestState } },
      ANY,
      { allowInputRequired: true },
    );
    expect(valueOf(done as never)).toBe('Hello, Ada!');
    expect(await server.close()).toEqual([]);
  });
});

describe('a 2026-07-28 caller over HTTP, its exposed calls of an upstream in 2025 left waiting on their questions', () => {
  let http: InProcessHttpServer;
  beforeAll(async () => {
    http = await startInProcessHttp(['--pool', '0', '--expose', '*', '--', process.execPath, fixture]);
  });
  afterAll(async () => {
    expect((await http.stop()).left).toEqual([]);
  });

  /** One round by hand: the answer as it came, input_required included, or the error. */
  async function round(client: Client, params: Record<string, unknown>) {
    return (await client
      .request({ method: 'tools/call', params } as never, ANY, { allowInputRequired: true })
      .catch((error: unknown) => ({ error }))) as {
      resultType?: string;
      inputRequests?: Record<string, unknown>;
      content?: Array<{ text?: string }>;
      error?: { code?: number };
    };
  }

  // The bug: a question that came while two calls were out was taken for anyone's, and the next
  // call, which asked nothing, answered input_required with it (conformance's tools-call-* after server-stateless).
  test('a later call that asks nothing gets its own answer, not their questions', async () => {
    const caller = await connectHttp(http.url, { capabilities: { elicitation: { form: {} } }, ...modern });
    const { client } = caller;
    for (const message of ['First?', 'Second?']) {
      const held = await round(client, { name: 'test_elicitation', arguments: { message } });
      expect(held.resultType).toBe('input_required');
      expect(Object.values(held.inputRequests ?? {})).toEqual([
        expect.objectContaining({ params: expect.objectContaining({ message }) }),
      ]);
    }
    const plain = await round(client, { name: 'test_simple_text', arguments: {} });
    expect(plain.resultType).not.toBe('input_required');
    expect(textOf(plain as never)).toBe('This is a simple text response for testing.');
    await caller.close();
  });

  // The bug: with one call waiting, a second call's sampling the client can't answer was not known
  // to be that call's, so the upstream's -32601 came back instead of the protocol's -32021.
  test("a later call's request the client did not declare ends it with -32021", async () => {
    const caller = await connectHttp(http.url, { capabilities: { elicitation: { form: {} } }, ...modern });
    const { client } = caller;
    const held = await round(client, { name: 'test_elicitation', arguments: { message: 'Waiting?' } });
    expect(held.resultType).toBe('input_required');
    const refused = await round(client, { name: 'test_sampling', arguments: { prompt: 'Hi?' } });
    expect(refused.error?.code).toBe(-32021);
    await caller.close();
  });
});
