/**
 * What a network listener must refuse, sent as raw HTTP (bytes an SDK client would never send):
 * foreign Host or Origin, a missing or wrong token, a body past the limit, an unknown session;
 * and how sessions end (DELETE, idle) and how the server does (SIGTERM). After each, the server
 * is stopped and nothing it started may be left.
 */
import { spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { INITIALIZE, connectHttp, mcpHeaders, rawRequest, startHttpServer, type HttpServer } from '../support/http-server.js';
import { BIN, nodeEntry, publishedEntry, structuredOf, writeConfig } from '../support/mcp-client.js';

const TOKEN = 'a-test-token-of-32-characters-ok';
let server: HttpServer | undefined;

afterEach(async () => {
  const stopped = await server?.stop();
  server = undefined;
  expect(stopped?.left ?? []).toEqual([]);
});

const everything = (): string => writeConfig({ everything: nodeEntry(publishedEntry('server-everything')) });
const initialize = (extra: Record<string, string> = {}, on: HttpServer = server!) =>
  rawRequest(on.port, {
    headers: mcpHeaders({ Host: `127.0.0.1:${on.port}`, ...extra }),
    body: JSON.stringify(INITIALIZE),
  });

/**
 * One server with the default settings for the tests that need nothing else: each works in
 * sessions of its own. No pool: a run makes its child. Stopped at the file's end, leaving nothing.
 */
let plain: Promise<HttpServer> | undefined;
const plainServer = (): Promise<HttpServer> => (plain ??= startHttpServer(['--config', everything(), '--pool', '0']));
afterAll(async () => {
  if (plain !== undefined) expect((await (await plain).stop()).left).toEqual([]);
});

describe('who may reach the server', () => {
  test('a foreign Host gets 403, and so does a foreign Origin; a loopback one is served', async () => {
    const on = await plainServer();
    const host = await initialize({ Host: 'evil.example.com' }, on);
    expect(host.status).toBe(403);
    expect(host.json()).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: expect.stringContaining(
          'Forbidden: Invalid Host: evil.example.com. This server answers requests for localhost, 127.0.0.1, [::1]',
        ),
      },
    });
    const origin = await initialize({ Origin: 'http://evil.example.com' }, on);
    expect(origin.status).toBe(403);
    expect(String(origin.json().error && (origin.json().error as { message: string }).message)).toContain(
      'Invalid Origin: evil.example.com',
    );
    const fine = await initialize({ Host: `localhost:${on.port}`, Origin: `http://localhost:${on.port}` }, on);
    expect(fine.status).toBe(200);
    expect(fine.headers['mcp-session-id']).toBeDefined();
  });

  test('with a token, a request without it or with a wrong one gets 401 and a Bearer challenge; the right one is served', async () => {
    server = await startHttpServer(['--config', everything(), '--http-token', TOKEN, '--pool', '0']);
    const none = await initialize();
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="codemode-mcp"');
    expect(none.text).toContain('no \\"Authorization: Bearer <token>\\" header');
    const wrong = await initialize({ Authorization: `Bearer ${TOKEN.replace('a', 'b')}` });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toBe('Bearer realm="codemode-mcp", error="invalid_token"');
    const health = await rawRequest(server.port, { method: 'GET', path: '/healthz', headers: { Host: 'localhost' } });
    expect(health.status).toBe(401);
    const right = await initialize({ Authorization: `Bearer ${TOKEN}` });
    expect(right.status).toBe(200);
    await server.logged(/upstreams: everything ready/);
    const healthy = await rawRequest(server.port, {
      method: 'GET',
      path: '/healthz',
      headers: { Host: 'localhost', Authorization: `Bearer ${TOKEN}` },
    });
    expect(healthy.status).toBe(200);
    expect(healthy.json()).toEqual({
      status: 'serving',
      version: expect.any(String),
      upstreams: [{ name: 'everything', state: 'ready', tools: expect.any(Number) }],
      sessions: 1,
      scriptChildren: { running: 0, pooled: 0, max: 16 },
    });
  });

  // Load balancers and Kubernetes probes send no token, and a Host of the address they reached.
  test('with --http-public-health, GET /healthz without the token gets the status alone; the details still need it', async () => {
    server = await startHttpServer(['--config', everything(), '--http-token', TOKEN, '--pool', '0', '--http-public-health']);
    const probe = await rawRequest(server.port, { method: 'GET', path: '/healthz', headers: { Host: '10.1.2.3:8080' } });
    expect(probe.status).toBe(200);
    expect(probe.json()).toEqual({ status: 'serving' });
    expect(probe.headers['cache-control']).toBe('no-store');
    const detailed = await rawRequest(server.port, {
      method: 'GET',
      path: '/healthz',
      headers: { Host: 'localhost', Authorization: `Bearer ${TOKEN}` },
    });
    expect(detailed.json()).toMatchObject({ status: 'serving', version: expect.any(String), sessions: 0 });
    expect((await initialize()).status).toBe(401);
  });

  test('binding beyond loopback without a token is refused at start, saying how to set one', () => {
    const started = spawnSync(process.execPath, [BIN, '--http', '0.0.0.0:0', '--config', everything()], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(started.status).toBe(2);
    expect(started.stderr).toContain('--http binds 0.0.0.0, which other machines can reach, and has no token');
    expect(started.stderr).toContain('Set one with --http-token <token> or the CODEMODE_HTTP_TOKEN environment variable');
  });
});

describe('what a request gets', () => {
  test('a body over maxMessageBytes gets 413 and the server keeps serving', async () => {
    server = await startHttpServer(['--config', everything(), '--max-message-bytes', '1MiB', '--pool', '0']);
    const big = JSON.stringify({ ...INITIALIZE, params: { ...INITIALIZE.params, padding: 'x'.repeat(2 * 1024 * 1024) } });
    const refused = await rawRequest(server.port, { headers: mcpHeaders({ Host: 'localhost' }), body: big });
    expect(refused.status).toBe(413);
    expect(refused.text).toContain("over the server's limit of 1 MiB (maxMessageBytes)");
    expect((await initialize()).status).toBe(200);
  });

  test('an unknown session id gets 404, a request without one 400, an unsupported MCP-Protocol-Version 400, bad JSON 400 and bad params a JSON-RPC error with its id', async () => {
    const on = await plainServer();
    const unknown = await rawRequest(on.port, {
      headers: mcpHeaders({ Host: 'localhost', 'Mcp-Session-Id': 'no-such-session' }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('Session not found: \\"no-such-session\\"');
    const sessionless = await rawRequest(on.port, {
      headers: mcpHeaders({ Host: 'localhost' }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    });
    expect(sessionless.status).toBe(400);
    expect(sessionless.json()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32600, message: expect.stringContaining('no Mcp-Session-Id header') },
    });

    const session = String((await initialize({}, on)).headers['mcp-session-id']);
    const inSession = (body: string) =>
      rawRequest(on.port, { headers: mcpHeaders({ Host: 'localhost', 'Mcp-Session-Id': session }), body });
    const textBody = await rawRequest(on.port, {
      headers: { ...mcpHeaders({ Host: 'localhost', 'Mcp-Session-Id': session }), 'Content-Type': 'text/plain' },
      body: '{}',
    });
    expect(textBody.status).toBe(415);
    const notJson = await inSession('{"jsonrpc": ');
    expect(notJson.status).toBe(400);
    expect(notJson.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: expect.stringContaining('Parse error: the body is not JSON') },
    });
    const oldVersion = await rawRequest(on.port, {
      headers: mcpHeaders({ Host: 'localhost', 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '1999-01-01' }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping' }),
    });
    expect(oldVersion.status).toBe(400);
    expect(oldVersion.text).toContain('Unsupported protocol version: 1999-01-01');
    const badParams = await inSession(
      JSON.stringify({ jsonrpc: '2.0', id: 'p', method: 'ping', params: { _meta: { progressToken: 1.5 } } }),
    );
    expect(badParams.status).toBe(200);
    expect(badParams.json()).toEqual({
      jsonrpc: '2.0',
      id: 'p',
      error: {
        code: -32602,
        message: 'Invalid params for ping: params._meta.progressToken must be a string or a whole number; got number 1.5',
      },
    });
  });
});

describe('a cancelled call', () => {
  test('ends the stream of its POST, which would otherwise stay open with no answer to carry', async () => {
    const on = await plainServer();
    const session = String((await initialize({}, on)).headers['mcp-session-id']);
    const headers = mcpHeaders({ Host: 'localhost', 'Mcp-Session-Id': session });
    const call = {
      jsonrpc: '2.0',
      id: 'run-1',
      method: 'tools/call',
      params: {
        name: 'code_execution',
        arguments: { code: 'console.log("started"); await sleep(600_000)', yield_ms: 600_000 },
        _meta: { progressToken: 'p' },
      },
    };
    let text = '';
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const ended = new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: on.port, method: 'POST', path: '/mcp', headers }, (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          // The script's output comes as progress once its call is being served.
          if (text.includes('started')) started();
        });
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(JSON.stringify(call));
    });
    await running;
    const cancel = {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'run-1', reason: 'the user pressed stop' },
    };
    expect((await rawRequest(on.port, { headers, body: JSON.stringify(cancel) })).status).toBe(202);
    expect(await ended).toBe(200);
    expect(text).not.toContain('"id":"run-1"');
  });
});

describe('how a session ends', () => {
  test('DELETE ends the session and stops its running script; its id then gets 404', async () => {
    const on = await plainServer();
    const client = await connectHttp(on.url);
    const id = structuredOf(await client.run({ code: 'await sleep(600_000)', yield_ms: 0 })).script as string;
    const session = client.transport.sessionId!;
    await client.transport.terminateSession();
    expect(
      await on.logged(
        new RegExp(`session ${session} ended \\(the client ended it with DELETE\\); its running scripts: ${id} stopped`),
      ),
    ).toBeTruthy();
    const after = await rawRequest(on.port, {
      headers: mcpHeaders({ Host: 'localhost', 'Mcp-Session-Id': session }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(after.status).toBe(404);
    await client.client.close();
  });

  test('a session idle past httpSessionIdleMs ends, its running script stopped and logged', async () => {
    server = await startHttpServer(['--config', everything(), '--http-session-idle-ms', '1500', '--pool', '0']);
    const client = await connectHttp(server.url);
    const id = structuredOf(await client.run({ code: 'await sleep(600_000)', yield_ms: 0 })).script as string;
    const session = client.transport.sessionId!;
    // The SDK client holds its GET stream open; a client that went away holds nothing.
    await client.client.close();
    expect(
      await server.logged(
        new RegExp(`session ${session} ended \\(idle for 1500 ms \\(httpSessionIdleMs\\)\\); its running scripts: ${id} stopped`),
      ),
    ).toBeTruthy();
  });

  test('SIGTERM ends every session, stops their scripts, closes the upstreams and exits 143 (128 + SIGTERM), leaving nothing', async () => {
    server = await startHttpServer(['--config', everything()]);
    const client = await connectHttp(server.url);
    const id = structuredOf(await client.run({ code: 'await sleep(600_000)', yield_ms: 0 })).script as string;
    const stopped = await server.stop('SIGTERM');
    expect(stopped.code).toBe(143);
    expect(stopped.left).toEqual([]);
    expect(server.stderr()).toMatch(new RegExp(`ended \\(the server is shutting down\\); its running scripts: ${id} stopped`));
    await client.client.close().catch(() => {});
  });
});
