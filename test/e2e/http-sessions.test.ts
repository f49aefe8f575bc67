/**
 * codemode-mcp --http driven by the SDK's Streamable HTTP client: a session does everything a
 * stdio client does, and two sessions at once are worlds apart (scripts, elicitation, logging).
 */
import type { ElicitRequest, ElicitResult, Progress } from '@modelcontextprotocol/client';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { INITIALIZE, connectHttp, mcpHeaders, rawRequest, type HttpClient } from '../support/http-server.js';
import { startInProcessHttp, type InProcessHttpServer } from '../support/in-process-http.js';
import {
  eventually,
  fixturePath,
  nodeEntry,
  publishedEntry,
  structuredOf,
  textOf,
  valueOf,
  writeConfig,
} from '../support/mcp-client.js';

let server: InProcessHttpServer | undefined;
const clients: HttpClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  const stopped = await server?.stop();
  server = undefined;
  expect(stopped?.left ?? []).toEqual([]);
});

/**
 * The tests that only need sessions of their own share a server per config: each opens its own
 * sessions (closed after it), so none sees another's scripts, logs or elicitations. Each shared
 * server is stopped at the file's end, and must leave nothing behind then. No server here keeps a
 * pool: what is checked is the sessions'; each run makes its child.
 */
const shared = new Map<string, Promise<InProcessHttpServer>>();
function sharedServer(name: 'everything' | 'recorders', config: () => string): Promise<InProcessHttpServer> {
  let started = shared.get(name);
  if (started === undefined) {
    started = startInProcessHttp(['--config', config(), '--pool', '0']);
    shared.set(name, started);
  }
  return started;
}
const sharedEverything = (): Promise<InProcessHttpServer> => sharedServer('everything', everything);
/** Two recorder upstreams, "one" and "two": each offers `ask`, an elicitation. */
const sharedRecorders = (): Promise<InProcessHttpServer> =>
  sharedServer('recorders', () =>
    writeConfig({ one: nodeEntry(fixturePath('upstreams/recorder.mjs')), two: nodeEntry(fixturePath('upstreams/recorder.mjs')) }),
  );

afterAll(async () => {
  for (const started of shared.values()) expect((await (await started).stop()).left).toEqual([]);
});

async function open(options: Parameters<typeof connectHttp>[1] = {}): Promise<HttpClient> {
  return openOn(server!, options);
}

async function openOn(on: InProcessHttpServer, options: Parameters<typeof connectHttp>[1] = {}): Promise<HttpClient> {
  const client = await connectHttp(on.url, options);
  clients.push(client);
  return client;
}

const everything = (): string => writeConfig({ everything: nodeEntry(publishedEntry('server-everything')) });

describe('the cap on sessions open at once (maxHttpSessions)', () => {
  test('an initialize past the cap gets 503 with a JSON-RPC error saying what frees a place; the open sessions keep working, and an ended one frees its place', async () => {
    const cap = 3;
    server = await startInProcessHttp(['--config', everything(), '--max-http-sessions', String(cap), '--pool', '0']);
    const sessions = await Promise.all(Array.from({ length: cap }, () => open()));
    const initialize = (id: number) =>
      rawRequest(server!.port, { headers: mcpHeaders(), body: JSON.stringify({ ...INITIALIZE, id }) });
    const refused = await initialize(7);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.headers['mcp-session-id']).toBeUndefined();
    expect(refused.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32000,
        message:
          'Service Unavailable: 3 sessions are open, the most this server keeps (maxHttpSessions, --max-http-sessions); ' +
          'end a session you no longer use with DELETE, wait for one idle 30 min to end (httpSessionIdleMs), or raise the cap',
      },
    });
    // The SDK's client is refused the same way, and the refusals are logged.
    await expect(connectHttp(server.url)).rejects.toThrow(/maxHttpSessions/);
    await server.logged(/3 sessions are open, the most this server keeps/);
    for (const session of sessions) expect(valueOf(await session.run({ code: 'return 6 * 7' }))).toBe(42);

    await sessions[0]!.close();
    const next = await open();
    expect(valueOf(await next.run({ code: 'return 1' }))).toBe(1);
    expect((await initialize(8)).status).toBe(503);
  });
});

describe('a session over HTTP', () => {
  test('initializes, lists code_execution, runs a script that calls a real upstream, and waits, stops and lists', async () => {
    const session = await openOn(await sharedEverything());
    expect(session.transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['code_execution']);
    expect(tools[0]!.description).toContain('get-sum');

    const sum = await session.run({ code: 'return (await tools["get-sum"]({ a: 2, b: 40 })).content[0].text' });
    expect(textOf(sum)).toMatch(/^Script \S+ finished/);
    expect(valueOf(sum)).toContain('42');

    const started = await session.run({ code: 'console.log("tick"); await sleep(60_000)', yield_ms: 200 });
    const id = structuredOf(started).script as string;
    expect(textOf(started)).toMatch(/^Script \S+ running/);
    expect(textOf(await session.run({ action: 'wait', script: id, yield_ms: 100 }))).toMatch(/^Script \S+ running/);
    expect(textOf(await session.run({ action: 'list' }))).toContain(id);
    expect(textOf(await session.run({ action: 'stop', script: id }))).toMatch(/^Script \S+ stopped/);
  });

  test('a watched run sends progress notifications on its own call', async () => {
    const session = await openOn(await sharedEverything());
    const progress: Progress[] = [];
    const result = await session.run(
      { code: 'for (let i = 1; i <= 3; i++) { console.log("step " + i); await sleep(300) } return "done"' },
      { onprogress: (update) => progress.push(update) },
    );
    expect(valueOf(result)).toBe('done');
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.map((update) => update.message).join('\n')).toMatch(/step 1[\s\S]*step 3/);
    expect(progress.map((update) => update.progress)).toEqual(progress.map((_, index) => index + 1));
  });
});

describe('a session over HTTP, reached outside a call', () => {
  test("an upstream's elicitation while no call of the session is open reaches the client on its GET stream", async () => {
    const on = await sharedRecorders();
    let answered!: () => void;
    const asked = new Promise<void>((resolve) => (answered = resolve));
    const session = await openOn(on, {
      capabilities: { elicitation: { form: {} } },
      onElicit: () => {
        answered();
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
    // The run answers at once; the script asks later, when only the GET stream is open.
    const started = await session.run({
      code: 'await sleep(500); return JSON.parse((await tools.one__ask({})).content[0].text).content.name',
      yield_ms: 0,
    });
    await asked;
    const ended = await session.run({ action: 'wait', script: structuredOf(started).script, yield_ms: 20_000 });
    expect(valueOf(ended)).toBe('Ada');
  });

  test('the logging level a session sets filters what it is sent', async () => {
    const session = await openOn(await sharedEverything());
    await session.client.setLoggingLevel('error');
    expect(valueOf(await session.run({ code: 'notify({ filtered: true }); return "ok"' }))).toBe('ok');
    await session.client.setLoggingLevel('info');
    expect(valueOf(await session.run({ code: 'notify({ filtered: false }); return "ok"' }))).toBe('ok');
    // Both go out on the session's GET stream, in order: once the second is there, the first would be.
    const notified = () => session.logs.map((log) => (log.data as { notify?: unknown }).notify);
    await eventually(async () => expect(notified()).toContainEqual({ filtered: false }));
    expect(notified()).toEqual([{ filtered: false }]);
  });
});

describe('two sessions at once', () => {
  test("each has its own scripts: one's ids are unknown to the other, and list shows only its own", async () => {
    const on = await sharedEverything();
    const a = await openOn(on, { name: 'A' });
    const b = await openOn(on, { name: 'B' });
    expect(a.transport.sessionId).not.toBe(b.transport.sessionId);
    const started = await a.run({ code: 'await sleep(60_000)', yield_ms: 0 });
    const id = structuredOf(started).script as string;
    const fromB = await b.run({ action: 'wait', script: id });
    expect(fromB.isError).toBe(true);
    expect(textOf(fromB)).toContain(`no script "${id}" of this session`);
    expect(textOf(fromB)).toContain('It has no scripts.');
    expect(textOf(await b.run({ action: 'list' }))).not.toContain(id);
    expect(textOf(await a.run({ action: 'list' }))).toContain(id);
  });

  test("each session's elicitations go to its own client while both scripts ask at once", async () => {
    const on = await sharedRecorders();
    // Neither answers until both have been asked, so the two requests are in flight together.
    const asked: string[] = [];
    let bothAsked!: () => void;
    const together = new Promise<void>((resolve) => (bothAsked = resolve));
    const answer =
      (who: string) =>
      async (request: ElicitRequest): Promise<ElicitResult> => {
        expect(request.params.message).toBe('Your name?');
        asked.push(who);
        if (asked.length === 2) bothAsked();
        await together;
        return { action: 'accept', content: { name: who } };
      };
    const a = await openOn(on, { name: 'A', capabilities: { elicitation: { form: {} } }, onElicit: answer('Ada') });
    const b = await openOn(on, { name: 'B', capabilities: { elicitation: { form: {} } }, onElicit: answer('Bob') });
    const code = (tool: string) => `return JSON.parse((await tools["${tool}"]({})).content[0].text).content.name`;
    const [fromA, fromB] = await Promise.all([a.run({ code: code('one__ask') }), b.run({ code: code('two__ask') })]);
    expect(valueOf(fromA)).toBe('Ada');
    expect(valueOf(fromB)).toBe('Bob');
    expect(asked.sort()).toEqual(['Ada', 'Bob']);
  });

  test("a script's notify reaches its own session's client only", async () => {
    const on = await sharedEverything();
    const a = await openOn(on, { name: 'A' });
    const b = await openOn(on, { name: 'B' });
    await a.client.setLoggingLevel('info');
    await b.client.setLoggingLevel('info');
    expect(valueOf(await a.run({ code: 'notify({ from: "A" }); return "ok"' }))).toBe('ok');
    await eventually(async () =>
      expect(a.logs).toContainEqual(
        expect.objectContaining({ logger: 'codemode-mcp', data: expect.objectContaining({ notify: { from: 'A' } }) }),
      ),
    );
    expect(valueOf(await b.run({ code: 'notify({ from: "B" }); return "ok"' }))).toBe('ok');
    await eventually(async () => expect(b.logs.map((log) => (log.data as { notify?: unknown }).notify)).toEqual([{ from: 'B' }]));
    expect(a.logs.map((log) => (log.data as { notify?: unknown }).notify)).toEqual([{ from: 'A' }]);
  });
});
