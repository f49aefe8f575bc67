/**
 * Memory between scripts, as a client drives it: what one run stores the next loads, in memory by
 * default, across a restart with --state-dir (and in a `run` by hand), across two servers sharing
 * one Redis with --state-url, per HTTP session, and past a limit.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectHttp, startHttpServer } from '../support/http-server.js';
import { runBin } from '../support/mcp-client.js';
import { REDIS_INSTALLED, REDIS_MISSING, redisTestsRun, startRedis, type RunningRedis } from '../support/redis-server.js';
import { RECORDER_UPSTREAM, valueOfRun, withRecorderServer } from '../support/recorder-server.js';
import { makeTempDir } from '../support/temp-dirs.js';

const upstream = RECORDER_UPSTREAM;

const STORE = `await store("plan", { steps: ["fetch", "sum"], done: 1 });
await store("seen:a", 1); await store("seen:b", 2); await store("other", 3);
return "stored";`;
const LOAD = `return { plan: await load("plan"), seen: await state.keys("seen:"), missing: await load("missing") };`;
const LOADED = { plan: { steps: ['fetch', 'sum'], done: 1 }, seen: ['seen:a', 'seen:b'] };

describe('store and load over stdio', () => {
  test('what one run stores, the next run loads; a removed key is gone; in memory it ends with the server', async () => {
    await withRecorderServer([], async (server) => {
      expect(await valueOfRun(server, STORE)).toBe('stored');
      expect(await valueOfRun(server, LOAD)).toEqual(LOADED);
      expect(await valueOfRun(server, 'return [await state.remove("plan"), await load("plan"), await state.keys()]')).toEqual([
        true,
        null,
        ['other', 'seen:a', 'seen:b'],
      ]);
    });
    await withRecorderServer([], async (server) => expect(await valueOfRun(server, 'return await state.keys()')).toEqual([]));
  });

  test('with --state-dir it survives a restart, and a script run by hand sees it', async () => {
    const dir = join(makeTempDir('state-e2e'), 'state');
    await withRecorderServer(['--state-dir', dir], async (server) => expect(await valueOfRun(server, STORE)).toBe('stored'));
    await withRecorderServer(['--state-dir', dir], async (server) => expect(await valueOfRun(server, LOAD)).toEqual(LOADED));
    const { stdout, exitCode, left } = await runBin(
      ['run', '-', '--state-dir', dir, ...upstream],
      'return (await load("plan")).steps.join(" then ")',
    );
    expect(exitCode).toBe(0);
    expect(left).toEqual([]);
    expect(stdout).toContain('value: "fetch then sum"');
  });

  test('a value past stateValueMaxBytes is refused in the script, saying which limit, and nothing is kept', async () => {
    await withRecorderServer(['--state-value-max-bytes', '1024'], async (server) => {
      const value = await valueOfRun(
        server,
        `let refused;
         try { await store("big", "x".repeat(2000)) } catch (e) { refused = e.name + ": " + e.message }
         return { refused, kept: await state.keys() };`,
      );
      expect(value).toMatchObject({ kept: [] });
      expect((value as { refused: string }).refused).toMatch(/^ToolRefused: STATE_VALUE_TOO_LARGE: .*stateValueMaxBytes/);
    });
  });
});

describe('store and load over HTTP', () => {
  test("each session has its own state: another session's scripts don't see it", async () => {
    const server = await startHttpServer(['--pool', '0', ...upstream]);
    const [a, b] = [await connectHttp(server.url), await connectHttp(server.url)];
    try {
      expect(await valueOfRun(a, STORE)).toBe('stored');
      expect(await valueOfRun(a, LOAD)).toEqual(LOADED);
      expect(await valueOfRun(b, LOAD)).toEqual({ seen: [] });
    } finally {
      await a.close();
      await b.close();
      expect((await server.stop()).left).toEqual([]);
    }
  });
});

describe.runIf(redisTestsRun('state.test.ts'))('store and load with --state-url', () => {
  let redis: RunningRedis | undefined;
  beforeAll(async () => {
    if (!REDIS_INSTALLED) throw new Error(REDIS_MISSING);
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  test('two servers sharing one Redis see each other’s stores', async () => {
    const url = redis!.url;
    await withRecorderServer(['--state-url', url], async (first) =>
      withRecorderServer(['--state-url', url], async (second) => {
        expect(await valueOfRun(first, STORE)).toBe('stored');
        expect(await valueOfRun(second, LOAD)).toEqual(LOADED);
        expect(await valueOfRun(second, 'await store("plan", "replaced"); return "ok"')).toBe('ok');
        expect(await valueOfRun(first, 'return await load("plan")')).toBe('replaced');
      }),
    );
  });
});
