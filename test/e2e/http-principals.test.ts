// A team server: --http-tokens-file gives each bearer token a principal, whose scripts are its
// own for 2026-07-28 clients (no session), whose 2025 sessions no other principal can use. A file
// others could read, or one that names no one, stops the start. (SIGHUP's reading of the file
// again is the process's: command-signals.test.ts.)
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectHttp, principalsArgs, writeTokensFile, type HttpClient } from '../support/http-server.js';
import { refusedInProcessHttp, startInProcessHttp, type InProcessHttpServer } from '../support/in-process-http.js';
import { structuredOf, textOf, valueOf } from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';

const modern = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
const ADA = 'ada-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef';
const CY = 'cy-token-0123456789abcdefg';

const scriptOf = (result: CallToolResult): string => (structuredOf(result) as { script: string }).script;

describe('principals from a tokens file', () => {
  let server: InProcessHttpServer;
  let tokensFile: string;
  const clients: HttpClient[] = [];
  const connect = async (token: string, options: object = modern): Promise<HttpClient> => {
    const client = await connectHttp(server.url, { token, ...options });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    tokensFile = writeTokensFile({ ada: ADA, bob: BOB });
    server = await startInProcessHttp(principalsArgs(tokensFile));
  });

  afterAll(async () => {
    for (const client of clients) await client.close();
    expect((await server.stop()).left).toEqual([]);
  });

  test("a 2026-07-28 client reaches its principal's scripts from any request, and no other principal's", async () => {
    const ada = await connect(ADA);
    const started = await ada.run({ code: 'while (true) {}', yield_ms: 50 });
    const id = scriptOf(started);
    // Another connection of the same principal: no session, the same scripts.
    const adaAgain = await connect(ADA);
    expect(structuredOf(await adaAgain.run({ action: 'list' })).scripts).toEqual([
      expect.objectContaining({ id, status: 'running' }),
    ]);
    const bob = await connect(BOB);
    expect(textOf(await bob.run({ action: 'wait', script: id }))).toContain(`no script "${id}" of principal bob`);
    expect(structuredOf(await bob.run({ action: 'list' })).scripts).toEqual([]);
    expect(structuredOf(await adaAgain.run({ action: 'stop', script: id }))).toMatchObject({ script: id, status: 'stopped' });
  });

  test("a 2025 session opened with one principal's token is not found with another's", async () => {
    const ada = await connect(ADA, {});
    const sessionId = ada.transport.sessionId!;
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        Authorization: `Bearer ${BOB}`,
        'Mcp-Session-Id': sessionId,
        'Mcp-Protocol-Version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(404);
    expect(valueOf(await ada.run({ code: 'return 1' }))).toBe(1);
  });

  test('a token the file does not hold is refused with 401, saying what to send', async () => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${CY}` },
      body: '{}',
    });
    expect(response.status).toBe(401);
    expect(await response.text()).toContain('--http-tokens-file');
  });
});

describe('a tokens file that cannot be used stops the start', () => {
  test.each([
    [
      'readable by others',
      { ada: ADA },
      0o644,
      /TOKENS_FILE_INVALID: .*its mode is 644, so others may read its tokens; make it the owner's alone: chmod 600/,
    ],
    ['naming no one', {}, 0o600, /TOKENS_FILE_INVALID: .*names no principal/],
    ['with a short token', { ada: 'short' }, 0o600, /the token of ada must be a string of at least 16 characters/],
    ['with a name that is not one', { 'a b': ADA }, 0o600, /principal "a b" must be 1 to 64 letters/],
  ])('%s', async (_what, tokens, mode, message) => {
    const file = writeTokensFile(tokens, mode);
    // Regression: the file was read only after the upstreams had started.
    const started = join(makeTempDir('tokens-start'), 'started');
    const result = await refusedInProcessHttp([
      '--http-tokens-file',
      file,
      '--pool',
      '0',
      '--',
      process.execPath,
      '-e',
      `require("fs").writeFileSync(${JSON.stringify(started)}, "started")`,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.left).toEqual([]);
    expect(existsSync(started)).toBe(false);
  });
});
