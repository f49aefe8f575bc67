import { createServer as createHttpServer } from 'node:http';
import { describe, expect, test } from 'vitest';
import { UpstreamHub } from '../../src/upstream/hub.js';
import type { RemoteUpstreamSpec } from '../../src/upstream/spec.js';
import { freePort } from '../support/ports.js';
import { collectLog, everythingEntry, remotePerTest, textOf } from './specs.js';

const scratch = remotePerTest();

/** server-everything serving over HTTP: `streamableHttp` at /mcp, or the older `sse` at /sse. */
async function startEverything(mode: 'streamableHttp' | 'sse'): Promise<number> {
  const port = await freePort();
  await scratch.serve([everythingEntry, mode], { PATH: process.env.PATH, PORT: String(port) }, /listening|running/i);
  return port;
}

const remote = (transport: 'http' | 'sse', url: string): RemoteUpstreamSpec => ({
  name: 'remote',
  transport,
  url,
  headers: { 'X-Test': 'yes' },
  policy: {},
});

describe('remote upstreams', () => {
  test('a Streamable HTTP server is reached over Streamable HTTP', async () => {
    const port = await startEverything('streamableHttp');
    const { lines, log } = collectLog();
    const hub = (scratch.hub = new UpstreamHub([remote('http', `http://127.0.0.1:${port}/mcp`)], { log }));
    await hub.start();
    expect(lines.find((line) => line.startsWith('codemode-mcp: upstream "remote" connected'))).toMatch(
      /connected over http: \d+ tools$/,
    );
    expect(textOf(await hub.callTool('get-sum', { a: 2, b: 40 }))).toContain('42');
  });

  test('an http entry for a server that only speaks SSE falls back to SSE', async () => {
    const port = await startEverything('sse');
    const { lines, log } = collectLog();
    const hub = (scratch.hub = new UpstreamHub([remote('http', `http://127.0.0.1:${port}/sse`)], { log }));
    await hub.start();
    expect(lines.find((line) => line.startsWith('codemode-mcp: upstream "remote" connected'))).toMatch(
      /connected over sse: \d+ tools$/,
    );
    expect(textOf(await hub.callTool('get-sum', { a: 2, b: 40 }))).toContain('42');
  });

  test('an sse entry goes straight to SSE', async () => {
    const port = await startEverything('sse');
    const hub = (scratch.hub = new UpstreamHub([remote('sse', `http://127.0.0.1:${port}/sse`)], { log: () => {} }));
    await hub.start();
    expect(textOf(await hub.callTool('echo', { message: 'over sse' }))).toContain('over sse');
  });

  test('a server nobody listens on is down, with the reason', async () => {
    const port = await freePort();
    const hub = (scratch.hub = new UpstreamHub([remote('http', `http://127.0.0.1:${port}/mcp`)], { log: () => {} }));
    await hub.start();
    expect(hub.upstreamStatus()[0]).toEqual({
      name: 'remote',
      state: 'down',
      reason: `fetch failed (connect ECONNREFUSED 127.0.0.1:${port})`,
    });
    await expect(hub.callTool('anything', {})).rejects.toMatchObject({ code: 'UPSTREAM_DOWN' });
  });

  test('the entry headers go on every request: the revision probe, the Streamable HTTP POST and the SSE GET it falls back to', async () => {
    const seen: Array<{ method: string; header: string | undefined }> = [];
    const http = createHttpServer((request, response) => {
      seen.push({ method: request.method!, header: request.headers['x-test'] as string | undefined });
      request.resume();
      response.writeHead(404).end('not here');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = http.address() as { port: number };
      const hub = (scratch.hub = new UpstreamHub([remote('http', `http://127.0.0.1:${port}/mcp`)], { log: () => {} }));
      await hub.start();
      // server/discover, answered 404 (no sign of 2026-07-28), then initialize, answered 404 (no Streamable HTTP).
      expect(seen.slice(0, 3)).toEqual([
        { method: 'POST', header: 'yes' },
        { method: 'POST', header: 'yes' },
        { method: 'GET', header: 'yes' },
      ]);
      expect(hub.upstreamStatus()[0]).toMatchObject({ state: 'down' });
    } finally {
      await scratch.hub?.close();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});
