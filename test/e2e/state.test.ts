/**
 * Memory between scripts, as a client drives it: what one run stores the next loads, in memory by
 * default, across a restart with --state-dir (and in a `run` by hand), across two servers sharing
 * one Redis with --state-url, per HTTP principal (across its sessions), and past a limit.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectHttp } from '../support/http-server.js';
import { startInProcessHttp } from '../support/in-process-http.js';
import { runInProcess } from '../support/in-process-command.js';
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
    const { stdout, exitCode, left } = await runInProcess(['run', '-', '--state-dir', dir, ...upstream], {
      input: 'return (await load("plan")).steps.join(" then ")',
    });
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
  // Regression: with one --http-token each session was a principal of its own, so a client that
  // reconnected (a new session) lost what it stored.
  test('one bearer token is one principal: a client that reconnects loads what it stored', async () => {
    const token = 'one-token-0123456789abcdef';
    const server = await startInProcessHttp(['--pool', '0', '--http-token', token, ...upstream]);
    try {
      const first = await connectHttp(server.url, { token });
      expect(await valueOfRun(first, STORE)).toBe('stored');
      await first.close();
      const again = await connectHttp(server.url, { token });
      expect(await valueOfRun(again, LOAD)).toEqual(LOADED);
      await again.close();
    } finally {
      expect((await server.stop()).left).toEqual([]);
    }
  });

  test("each principal of a tokens file has its own state: another principal's sessions don't see it", async () => {
    const tokens = { ada: 'ada-token-0123456789abcdef', bob: 'bob-token-0123456789abcdef' };
    const file = join(makeTempDir('tokens'), 'tokens.json');
    writeFileSync(file, JSON.stringify(tokens));
    chmodSync(file, 0o600);
    const server = await startInProcessHttp(['--pool', '0', '--http-tokens-file', file, ...upstream]);
    const [ada, bob] = [
      await connectHttp(server.url, { token: tokens.ada }),
      await connectHttp(server.url, { token: tokens.bob }),
    ];
    try {
      expect(await valueOfRun(ada, STORE)).toBe('stored');
      expect(await valueOfRun(ada, LOAD)).toEqual(LOADED);
      expect(await valueOfRun(bob, LOAD)).toEqual({ seen: [] });
    } finally {
      await ada.close();
      await bob.close();
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
    // No type check: two servers in this one process, where a compiler one of them starts later
    // would be taken for the other's process (in-process-server.ts tells them apart by when they start).
    const args = ['--state-url', url, '--type-check', 'off'];
    await withRecorderServer(args, async (first) =>
      withRecorderServer(args, async (second) => {
        expect(await valueOfRun(first, STORE)).toBe('stored');
        expect(await valueOfRun(second, LOAD)).toEqual(LOADED);
        expect(await valueOfRun(second, 'await store("plan", "replaced"); return "ok"')).toBe('ok');
        expect(await valueOfRun(first, 'return await load("plan")')).toBe('replaced');
      }),
    );
  });
});
