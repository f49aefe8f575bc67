import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/config/settings.js';
import { UpstreamHub } from '../../src/upstream/hub.js';
import { ROUTE_SCHEMA } from '../fixtures/upstreams/current-revision-schema.mjs';
import { fixturePath } from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { collectLog, remotePerTest, textOf } from './specs.js';

const scratch = remotePerTest();

/** The Mcp-* headers of each POST the fixture got, in order. */
function headersIn(file: string): Array<Record<string, string>> {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, string>);
}

/** The 2026-only fixture over Streamable HTTP, and a hub with it as its one upstream. */
async function startCurrentRevision(
  settings: Partial<typeof DEFAULT_SETTINGS> = {},
): Promise<{ hub: UpstreamHub; headers: string }> {
  const headers = join(makeTempDir('current-revision-http'), 'headers');
  const [, port] = await scratch.serve(
    [fixturePath('upstreams/current-revision.mjs'), '--http'],
    { PATH: process.env.PATH, HEADERS_FILE: headers },
    /listening on (\d+)/,
  );
  const hub = (scratch.hub = new UpstreamHub(
    [{ name: 'current', transport: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: {}, policy: {} }],
    { log: collectLog().log, settings: { ...DEFAULT_SETTINGS, ...settings } },
  ));
  await hub.start();
  return { hub, headers };
}

describe('a remote upstream that speaks only 2026-07-28', () => {
  test('is opened with server/discover, and its tools keep their JSON Schema 2020-12 and x-mcp-header exactly as written', async () => {
    const { hub, headers } = await startCurrentRevision();
    expect(hub.upstreamStatus()[0]).toMatchObject({ state: 'ready' });
    const route = hub.catalog().tools.find((tool) => tool.name === 'route');
    expect(route?.inputSchema).toEqual(ROUTE_SCHEMA);
    expect(headersIn(headers)[0]).toEqual({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' });
  });

  test('a call carries Mcp-Method, Mcp-Name and the Mcp-Param-* of its marked parameters, non-ASCII in base64', async () => {
    const { hub, headers } = await startCurrentRevision();
    expect(textOf(await hub.callTool('route', { region: 'eu-west', hops: [1, 'a'] }))).toBe('routed to eu-west');
    expect(textOf(await hub.callTool('route', { region: 'Zürich' }))).toBe('routed to Zürich');
    expect(textOf(await hub.callTool('greet', { name: 'Ada' }))).toBe('hello Ada');
    const calls = headersIn(headers).filter((sent) => sent['mcp-method'] === 'tools/call');
    expect(calls).toEqual([
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'route', 'mcp-param-region': 'eu-west' },
      {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'route',
        'mcp-param-region': `=?base64?${Buffer.from('Zürich').toString('base64')}?=`,
      },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'greet' },
    ]);
  });

  test('an idle spell is checked with server/discover, since 2026-07-28 has no ping, and it stays up', async () => {
    const { hub, headers } = await startCurrentRevision({ upstreamPingIntervalMs: 1 });
    expect(textOf(await hub.callTool('greet', { name: 'Ada' }))).toBe('hello Ada');
    expect(hub.upstreamStatus()[0]).toMatchObject({ state: 'ready' });
    const methods = headersIn(headers).map((sent) => sent['mcp-method']);
    expect(methods.lastIndexOf('server/discover')).toBeGreaterThan(methods.indexOf('tools/list'));
    expect(methods).not.toContain('ping');
  });
});
