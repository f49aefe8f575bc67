/**
 * What a hostile or broken client gets from the real server over stdio: every request one answer,
 * fast; nothing it sends ends the server, a running script, or starts anything twice.
 */
import { readFileSync } from 'node:fs';

import { ProtocolError } from '@modelcontextprotocol/client';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { readRecord } from '../upstream/specs.js';
import { fixturePath, startServer, structuredOf, textOf, valueOf, type RunningServer } from '../support/mcp-client.js';
import { childPidsOf } from '../support/processes.js';
import { RawServer, rawServer } from '../support/raw-client.js';
import { recorderConfig, scriptChildrenOf } from '../support/recorder.js';

const servers: RunningServer[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) expect(await server.close()).toEqual([]);
});

/** Time to answer each malformed request, for the report. */
const timings: string[] = [];
afterAll(() => {
  if (timings.length > 0) console.info(`time to answer each malformed request:\n${timings.join('\n')}`);
});

describe('a message too large', () => {
  test('an 11 MB request is served; one over maxMessageBytes gets -32600 naming the setting; a script running before both still finishes', async () => {
    // Regression: the SDK's ReadBuffer ended the connection past 10 MiB, and every running script with it.
    const { config } = recorderConfig('bad-input');
    const server = await startServer(['--config', config, '--pool', '1']);
    servers.push(server);
    const before = await server.run({ code: 'await sleep(1000); return "survived"', yield_ms: 0 });
    expect(structuredOf(before).status).toBe('running');

    const eleven = await server.run({ code: `return 11; //${'x'.repeat(11_000_000)}` });
    expect(valueOf(eleven)).toBe(11);

    const tooLarge = server.run({ code: `return 17; //${'x'.repeat(17 * 1024 * 1024)}` });
    await expect(tooLarge).rejects.toThrow(ProtocolError);
    await expect(tooLarge).rejects.toMatchObject({
      code: -32600,
      message: expect.stringMatching(
        /Request too large: 17,825,\d{3} bytes, over the server's limit of 16 MiB \(maxMessageBytes\).*--max-message-bytes/,
      ),
    });

    expect(valueOf(await server.run({ code: 'return 2' }))).toBe(2);
    const id = structuredOf(before).script as string;
    expect(valueOf(await server.run({ action: 'wait', script: id }))).toBe('survived');
  });

  test('a line over the limit with no id is dropped with one log line; a 100 MB one is answered without being held', async () => {
    const server = rawServer([
      '--max-message-bytes',
      '1MiB',
      '--pool',
      '0',
      '--',
      process.execPath,
      fixturePath('upstreams/recorder.mjs'),
    ]);
    await server.initialize();
    await server.write({ jsonrpc: '2.0', id: 'list', method: 'tools/list' });
    await server.answerTo('list');
    const baseline = peakRssOf(server.pid);

    await server.write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${'x'.repeat(2 * 1024 * 1024)}"}}\n`);
    await server.stderrMatching(
      /dropped a message of 2,097,2\d\d bytes, over the server's limit of 1 MiB \(maxMessageBytes\): it has no id to answer/,
    );

    // 100 MB with the id after it, in pieces as a pipe carries them.
    const piece = Buffer.alloc(1024 * 1024, 'y');
    await server.write('{"jsonrpc":"2.0","method":"tools/call","params":{"name":"code_execution","arguments":{"code":"');
    for (let i = 0; i < 100; i += 1) await server.write(piece);
    await server.write('"}},"id":"big"}\n');
    const answer = await server.answerTo('big');
    expect(answer.error).toMatchObject({
      code: -32600,
      message: expect.stringMatching(/^Request too large: 104,857,\d{3} bytes/),
    });
    const peak = peakRssOf(server.pid);
    console.info(
      `server peak RSS (VmHWM): ${mib(baseline)} once serving, ${mib(peak)} after reading a 100 MB line over a 1 MiB limit`,
    );
    // Holding the line would take 100 MiB at least; what grows is the pipe's chunks awaiting GC (about 33 MiB, whatever the line's size).
    expect(peak - baseline).toBeLessThan(64 * 1024 * 1024);

    await server.write({ jsonrpc: '2.0', id: 'after', method: 'ping' });
    expect((await server.answerTo('after')).result).toEqual({});
    expect(server.stderr().match(/dropped a message/g)).toHaveLength(1);
  });
});

describe('requests the SDK would drop unanswered', () => {
  /** One raw server, initialized, for the tests here (each request is answered on its own); closed after them, leaving nothing. */
  let raw: Promise<RawServer> | undefined;
  const sharedRawServer = (): Promise<RawServer> =>
    (raw ??= (async () => {
      const server = new RawServer(['--pool', '0', '--', process.execPath, fixturePath('upstreams/recorder.mjs')]);
      await server.initialize();
      return server;
    })());
  afterAll(async () => {
    if (raw !== undefined) expect(await (await raw).close()).toEqual([]);
  });

  const cases: Array<[string, Record<string, unknown>, number, RegExp]> = [];
  for (const method of ['ping', 'tools/list', 'tools/call']) {
    const base = method === 'tools/call' ? { name: 'code_execution', arguments: { code: 'return 1' } } : {};
    for (const token of [{}, 1.5, null, true]) {
      cases.push([
        `${method} with progressToken ${JSON.stringify(token)}`,
        { method, params: { ...base, _meta: { progressToken: token } } },
        -32602,
        /params\._meta\.progressToken must be a string or a (whole )?number; got /,
      ]);
    }
    cases.push([
      `${method} with params "x"`,
      { method, params: 'x' },
      -32602,
      /^Invalid params for \S+: params must be an object; got "x"$/,
    ]);
  }
  cases.push(
    [
      'tools/call without a name',
      { method: 'tools/call', params: { arguments: {} } },
      -32602,
      /params\.name must be a string; got nothing/,
    ],
    [
      'logging/setLevel to 5',
      { method: 'logging/setLevel', params: { level: 5 } },
      -32602,
      /params\.level must be one of "debug", .*; got number 5/,
    ],
    ['an unknown method', { method: 'tools/dance' }, -32601, /^Method not found: "tools\/dance"$/],
    ['an unknown method with params "x"', { method: 'tools/dance', params: 'x' }, -32601, /^Method not found/],
    [
      'a request with a field JSON-RPC has not',
      { method: 'ping', extra: 1 },
      -32600,
      /^Invalid Request: the message has a field it may not have: "extra"$/,
    ],
  );

  test('each gets its error (the time each took is printed, not bounded: a loaded machine is slow), and the server answers the next request', async () => {
    const server = await sharedRawServer();
    for (const [name, request, code, message] of cases) {
      const id = `case ${name}`;
      const sent = performance.now();
      await server.write({ jsonrpc: '2.0', id, ...request });
      const answer = await server.answerTo(id);
      timings.push(`  ${name}: ${(performance.now() - sent).toFixed(1)} ms`);
      expect(answer.error, name).toMatchObject({ code, message: expect.stringMatching(message) });
    }
    expect(server.stderr()).not.toMatch(/invalid_union|"code": "invalid_type"/);
    await server.write({ jsonrpc: '2.0', id: 'last', method: 'ping' });
    expect((await server.answerTo('last')).result).toEqual({});
  });

  test('a line that is not JSON gets -32700 without an id; a notification that does not hold gets one log line', async () => {
    // Its answers are told apart from the test before's: only -32700 comes without an id.
    const server = await sharedRawServer();
    await server.write('this is not json\n');
    await server.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: 'x' });
    await server.write({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await server.answerTo(1);
    expect(server.answers.find((answer) => answer.error?.code === -32700)).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32700,
        message: expect.stringMatching(
          /^Parse error: a line is not JSON \(Unexpected token .*\); each line must be one JSON-RPC message$/,
        ),
      },
    });
    await server.stderrMatching(/dropped a notification that does not hold: params must be an object; got "x"/);
    // Answers only: a notification the server sends meanwhile (resources/list_changed, once its
    // upstreams are listed) has no id either.
    expect(server.answers.filter((answer) => answer.id === undefined && !('method' in answer))).toHaveLength(1);
  });
});

describe('the lifecycle', () => {
  test('a request before initialize is refused and starts nothing; initialize then starts exactly `pool` script children and one upstream', async () => {
    // Regression: a call before initialize made a pool of its own, and initialize a second one.
    const { config, recordFile } = recorderConfig('bad-input');
    const server = rawServer(['--config', config, '--pool', '2', '--log-level', 'debug']);
    await server.write({
      jsonrpc: '2.0',
      id: 'early',
      method: 'tools/call',
      params: { name: 'code_execution', arguments: { code: 'return 1' } },
    });
    expect((await server.answerTo('early')).error).toEqual({
      code: -32600,
      message: 'Invalid Request: tools/call came before initialize; send initialize first (only ping may come before it)',
    });
    await server.write({ jsonrpc: '2.0', id: 'early-ping', method: 'ping' });
    expect((await server.answerTo('early-ping')).result).toEqual({});
    expect(childPidsOf(server.pid)).toEqual([]);

    await server.initialize();
    // The pool starts its first child before initialize is answered, the rest once the server has started.
    expect(scriptChildrenOf(server.pid).length).toBeGreaterThanOrEqual(1);
    await server.write({ jsonrpc: '2.0', id: 'list', method: 'tools/list' });
    await server.answerTo('list');
    await server.stderrMatching(/started; the pool holds 2 children/);
    expect(scriptChildrenOf(server.pid)).toHaveLength(2);
    expect(readRecord(recordFile).filter((entry) => entry.event === 'start')).toHaveLength(1);
  });

  test('initialize twice is refused, and starts nothing again', async () => {
    const { config, recordFile } = recorderConfig('bad-input');
    const server = rawServer(['--config', config, '--pool', '1']);
    await server.initialize(1);
    await server.write({
      jsonrpc: '2.0',
      id: 2,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'again', version: '1' } },
    });
    expect((await server.answerTo(2)).error).toMatchObject({
      code: -32600,
      message: expect.stringMatching(/already initialized/),
    });
    await server.write({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    await server.answerTo(3);
    expect(scriptChildrenOf(server.pid)).toHaveLength(1);
    expect(readRecord(recordFile).filter((entry) => entry.event === 'start')).toHaveLength(1);
  });
});

describe('code_execution input', () => {
  test.each(['toString', '__proto__', 'constructor', 'valueOf', 'hasOwnProperty', 'isPrototypeOf'])(
    'action %j is refused, saying what is accepted',
    async (action) => {
      // Regression: `action in FIELDS` matched Object.prototype, and the call failed with -32603.
      const server = await sharedServer();
      const answer = await server.run({ action });
      expect(answer.isError).toBe(true);
      expect(textOf(answer)).toBe(
        `Refused: action must be one of "run", "wait", "stop", "list"; got "${action}". code_execution accepts ` +
          '{"code": "return 1 + 1", "yield_ms"?: 30000} to run a script; {"action": "wait", "script": "a1b2c3-1", "yield_ms"?: 30000} to watch it again; ' +
          '{"action": "stop", "script": "a1b2c3-1"} to stop it; {"action": "list"} to list this session\'s scripts.',
      );
    },
  );

  test('a 1 MB script id comes back cut to 200 characters, with its length', async () => {
    const server = await sharedServer();
    const answer = await server.run({ action: 'wait', script: 'i'.repeat(1_000_000) });
    expect(textOf(answer)).toBe(
      `Refused: no script "${'i'.repeat(200)}…" (1,000,000 characters) of this session. It has no scripts.`,
    );
  });

  test('a 1 MB tool name comes back cut to 200 characters, with its length', async () => {
    const server = await sharedServer();
    const call = server.client.callTool({ name: 't'.repeat(1_000_000), arguments: {} });
    await expect(call).rejects.toMatchObject({
      code: -32602,
      message: `Unknown tool "${'t'.repeat(200)}…" (1,000,000 characters): this server offers one tool, "code_execution"; call the other tools from a script in it, as tools[name](args)`,
    });
  });

  test('the listed input schema comes from the parser: as loose as before, and its examples run', async () => {
    const server = await sharedServer();
    const { tools } = await server.client.listTools();
    const schema = tools[0]!.inputSchema as unknown as { properties: Record<string, { examples: unknown[] }> };
    expect(schema).toMatchObject({
      type: 'object',
      properties: {
        code: { type: 'string' },
        action: { type: 'string', enum: ['run', 'wait', 'stop', 'list'] },
        script: { type: 'string' },
        yield_ms: { type: 'integer', minimum: 0 },
      },
    });
    // Every field optional and none forbidden, so bad input reaches the server's own refusal.
    expect(schema).not.toHaveProperty('required');
    expect(schema).not.toHaveProperty('additionalProperties');
    const { code, yield_ms: yieldMs } = schema.properties;
    expect(valueOf(await server.run({ code: code!.examples[0], yield_ms: yieldMs!.examples[0] }))).toBe(2);
  });
});

let shared: RunningServer | undefined;
async function sharedServer(): Promise<RunningServer> {
  shared ??= await startServer(['--pool', '0', '--', process.execPath, fixturePath('upstreams/recorder.mjs')]);
  return shared;
}
afterAll(async () => {
  if (shared !== undefined) expect(await shared.close()).toEqual([]);
});

function peakRssOf(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readStatus(pid));
  if (match === null) throw new Error(`no VmHWM for process ${pid}`);
  return Number(match[1]) * 1024;
}

function readStatus(pid: number): string {
  return readFileSync(`/proc/${pid}/status`, 'utf8');
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
