import { describe, expect, test } from 'vitest';
import { ResultTooLargeError } from '../../src/support/errors.js';
import { DEFAULT_SETTINGS } from '../../src/config/settings.js';
import { UpstreamHub } from '../../src/upstream/hub.js';
import { upstreamReadLimit } from '../../src/upstream/transport/read-limit.js';
import { fixturePath } from '../support/mcp-client.js';
import { collectLog, remotePerTest, textOf, until } from './specs.js';

const scratch = remotePerTest();

/** Our Streamable HTTP fixture, started; resolves with its port. */
async function startRemote(args: string[] = []): Promise<number> {
  const [, port] = await scratch.serve([fixturePath('upstreams/remote-http.mjs'), ...args], {}, /listening on (\d+)/);
  return Number(port);
}

async function control(port: number, what: 'freeze' | 'thaw'): Promise<void> {
  expect(await (await fetch(`http://127.0.0.1:${port}/${what}`)).text()).toBe(what);
}

describe('a remote upstream that stops answering without closing', () => {
  test('is marked down with the reason once a ping goes unanswered, its calls are refused, and it comes back when it answers again', async () => {
    const port = await startRemote();
    const { lines, log } = collectLog();
    const settings = {
      ...DEFAULT_SETTINGS,
      upstreamPingIntervalMs: 200,
      upstreamPingTimeoutMs: 500,
      upstreamStartTimeoutMs: 1_000,
    };
    const hub = (scratch.hub = new UpstreamHub(
      [{ name: 'remote', transport: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: {}, policy: {} }],
      { log, settings },
    ));
    await hub.start();
    expect(textOf(await hub.callTool('hello', {}))).toBe('hello');

    await control(port, 'freeze');
    await until(() => hub.upstreamStatus()[0]!.state === 'down');
    expect(hub.upstreamStatus()[0]).toMatchObject({
      state: 'down',
      reason: 'it did not answer a ping within 0.5 s (upstreamPingTimeoutMs)',
    });
    expect(lines).toContain(
      'codemode-mcp: upstream "remote" is down: it did not answer a ping within 0.5 s (upstreamPingTimeoutMs); reconnecting in 0.25 s',
    );
    await expect(hub.callTool('hello', {})).rejects.toMatchObject({
      code: 'UPSTREAM_DOWN',
      message: expect.stringContaining('is down: it did not answer a ping within 0.5 s'),
    });

    await control(port, 'thaw');
    await until(() => hub.upstreamStatus()[0]!.state === 'ready');
    expect(lines).toContain('codemode-mcp: upstream "remote" is up again: 2 tools');
    expect(textOf(await hub.callTool('hello', {}))).toBe('hello');
  });
});

describe('a remote upstream answering past the read limit', () => {
  test.each([
    ['JSON', []],
    ['an SSE stream', ['--sse']],
  ])(
    'answered as %s: fails just that call with ResultTooLarge; the connection stays up and a concurrent call succeeds',
    async (_how, args) => {
      const port = await startRemote(args);
      const memoryMaxBytes = 4 * 1024 * 1024;
      const limit = upstreamReadLimit(memoryMaxBytes);
      const { lines, log } = collectLog();
      const hub = (scratch.hub = new UpstreamHub(
        [{ name: 'remote', transport: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: {}, policy: {} }],
        {
          log,
          settings: { ...DEFAULT_SETTINGS, memoryMaxBytes },
        },
      ));
      await hub.start();
      const [error, concurrent] = await Promise.all([
        hub.callTool('big', { bytes: limit + 1 }).catch((reason: unknown) => reason),
        hub.callTool('hello', {}),
      ]);
      expect(error).toBeInstanceOf(ResultTooLargeError);
      expect((error as ResultTooLargeError).why).toMatch(
        new RegExp(`^its result came as a message of (more than )?\\d+ bytes, past the ${limit} bytes read from an upstream`),
      );
      expect(textOf(concurrent)).toBe('hello');
      expect(textOf(await hub.callTool('big', { bytes: 1000 }))).toHaveLength(1000);
      expect(hub.upstreamStatus()[0]).toMatchObject({ state: 'ready' });
      expect(lines.filter((line) => /disconnected|down/.test(line))).toEqual([]);
    },
  );
});
