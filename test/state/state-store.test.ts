/**
 * The state store's one contract, run against each backend: memory, a directory, and a real
 * redis-server started here on a free port (no persistence, in a temp dir). Where redis-server is
 * missing, its block skips saying so, and fails under CI=true (.ci/run installs it).
 */
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DirStateStore } from '../../src/state/dir-store.js';
import { STATE_KEY_MAX_CHARS } from '../../src/state/entry-checks.js';
import { MemoryStateStore } from '../../src/state/memory-store.js';
import { openStateStore } from '../../src/state/open-state-store.js';
import { DEFAULT_SETTINGS } from '../../src/config/settings.js';
import { RedisStateStore } from '../../src/state/redis-store.js';
import { StateError } from '../../src/state/state-error.js';
import type { StateLimits, StateStore } from '../../src/state/state-store.js';
import { stateBackends, TEST_STATE_LIMITS } from '../support/state-backends.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { freePort } from '../support/ports.js';
import { until } from '../support/waiting.js';

const LIMITS = TEST_STATE_LIMITS;

/** A clock the memory and directory stores read, moved by hand. */
const clock = { now: 1_700_000_000_000 };
const now = (): number => clock.now;

const { backends, opened, stateDir } = stateBackends('state-store.test.ts', now, { memory: true });

let principals = 0;

describe.each(backends)('the $name state store', (backend) => {
  /** A store, closed after the test; each test has principals of its own, so tests share no data. */
  async function open(limits?: StateLimits): Promise<StateStore> {
    const store = await backend.open(limits);
    opened.push(store);
    return store;
  }
  const principal = (): string => `principal-${++principals}`;

  async function refusal(promise: Promise<unknown>): Promise<StateError> {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StateError);
    return error as StateError;
  }

  test('JSON values come back as they were stored, and an absent key is undefined', async () => {
    const store = await open();
    const who = principal();
    const values = [{ a: [1, 2, { b: null }], s: 'é\n"' }, 'text', 0, false, null, [], 1.5e300];
    for (const [i, value] of values.entries()) await store.set(who, `k${i}`, JSON.stringify(value));
    for (const [i, value] of values.entries()) expect(JSON.parse((await store.get(who, `k${i}`))!)).toEqual(value);
    expect(await store.get(who, 'absent')).toBeUndefined();
  });

  test('a later store of a key replaces its value', async () => {
    const store = await open();
    const who = principal();
    await store.set(who, 'k', '"first"');
    await store.set(who, 'k', '"second"');
    expect(await store.get(who, 'k')).toBe('"second"');
    expect(await store.keys(who)).toEqual(['k']);
  });

  test('keys lists the live keys, sorted, those with a prefix taken literally', async () => {
    const store = await open();
    const who = principal();
    for (const key of ['user:2', 'task:1', 'user:1', 'a*b', 'ab', 'a?']) await store.set(who, key, '1');
    expect(await store.keys(who)).toEqual(['a*b', 'a?', 'ab', 'task:1', 'user:1', 'user:2']);
    expect(await store.keys(who, 'user:')).toEqual(['user:1', 'user:2']);
    expect(await store.keys(who, 'a*')).toEqual(['a*b']);
    expect(await store.keys(who, 'none')).toEqual([]);
    expect(await store.keys(principal())).toEqual([]);
  });

  test('remove deletes a key and says whether it was there', async () => {
    const store = await open();
    const who = principal();
    await store.set(who, 'k', '1');
    expect(await store.remove(who, 'k')).toBe(true);
    expect(await store.get(who, 'k')).toBeUndefined();
    expect(await store.remove(who, 'k')).toBe(false);
    expect(await store.keys(who)).toEqual([]);
  });

  test("principals are apart: one's keys are not another's", async () => {
    const store = await open();
    const [alice, bob] = [principal(), principal()];
    await store.set(alice, 'k', '"alice"');
    expect(await store.get(bob, 'k')).toBeUndefined();
    expect(await store.keys(bob)).toEqual([]);
    expect(await store.remove(bob, 'k')).toBe(false);
    expect(await store.get(alice, 'k')).toBe('"alice"');
  });

  test('odd keys are kept apart and come back exactly: ../x, slashes, dots, unicode, the longest', async () => {
    const store = await open();
    const who = principal();
    const keys = [
      '../x',
      '../../etc/passwd',
      'a/b',
      '.',
      '..',
      '\\',
      'x\u0000y',
      'line\nbreak',
      '日本語🙂',
      '🙂'.repeat(256),
      'k'.repeat(512),
    ];
    for (const [i, key] of keys.entries()) await store.set(who, key, String(i));
    for (const [i, key] of keys.entries()) expect(await store.get(who, key)).toBe(String(i));
    expect(await store.keys(who)).toEqual([...keys].sort());
  });

  test('a key that is empty, too long, not a string, or holds a lone surrogate is refused, naming the rule', async () => {
    const store = await open();
    const who = principal();
    const long = 'k'.repeat(STATE_KEY_MAX_CHARS + 1);
    for (const [key, got] of [
      ['', 'an empty string'],
      [long, '513 characters'],
      ['\ud800x', 'a string with a lone surrogate'],
      [7, 'a number'],
    ] as const) {
      const error = await refusal(store.set(who, key as string, '1'));
      expect(error.code).toBe('STATE_KEY_INVALID');
      expect(error.message).toBe(
        `STATE_KEY_INVALID: a key must be a non-empty string of at most 512 characters, with no lone surrogate; got ${got}`,
      );
      expect((await refusal(store.get(who, key as string))).code).toBe('STATE_KEY_INVALID');
    }
    expect(await store.keys(who)).toEqual([]);
  });

  test('a time to live that is not a whole number from 1 is refused', async () => {
    const store = await open();
    for (const ttlMs of [0, -5, 1.5, Number.NaN]) {
      const error = await refusal(store.set(principal(), 'k', '1', { ttlMs }));
      expect(error.message).toMatch(/^STATE_TTL_INVALID: ttlMs must be a whole number of milliseconds from 1; got number /);
    }
  });

  test('a value past stateValueMaxBytes is refused, saying the limit and what to do; nothing is written', async () => {
    const store = await open({ ...LIMITS, stateValueMaxBytes: 1024 });
    const who = principal();
    // 1 KiB of JSON passes; one byte more (a two-byte character, counted in UTF-8) does not.
    await store.set(who, 'fits', JSON.stringify('x'.repeat(1022)));
    const error = await refusal(store.set(who, 'big', JSON.stringify('é'.repeat(512))));
    expect(error.code).toBe('STATE_VALUE_TOO_LARGE');
    expect(error.message).toBe(
      'STATE_VALUE_TOO_LARGE: the value for "big" is 1.0 KiB of JSON, past the 1 KiB one value may be ' +
        '(stateValueMaxBytes, --state-value-max-bytes); nothing was written; store it in parts under several keys, or keep less of it',
    );
    expect(await store.keys(who)).toEqual(['fits']);
  });

  test('a further key past stateMaxKeys is refused, and a key already kept may still change', async () => {
    const store = await open({ ...LIMITS, stateMaxKeys: 3 });
    const who = principal();
    for (const key of ['a', 'b', 'c']) await store.set(who, key, '1');
    const error = await refusal(store.set(who, 'd', '1'));
    expect(error.code).toBe('STATE_TOO_MANY_KEYS');
    expect(error.message).toBe(
      'STATE_TOO_MANY_KEYS: storing the new key "d" would make 4 keys, past the 3 kept per principal (stateMaxKeys, ' +
        '--state-max-keys); nothing was written; remove keys no longer needed (state.remove), give entries a time to live, or keep more under one key',
    );
    await store.set(who, 'a', '2');
    expect(await store.get(who, 'a')).toBe('2');
    // Another principal has room of its own.
    await store.set(principal(), 'd', '1');
    await store.remove(who, 'c');
    await store.set(who, 'd', '1');
    expect(await store.keys(who)).toEqual(['a', 'b', 'd']);
  });

  test("past stateMaxBytes (keys and values together) a store is refused; a key's own old value makes room", async () => {
    const store = await open({ ...LIMITS, stateValueMaxBytes: 1024, stateMaxBytes: 2048 });
    const who = principal();
    // Each entry weighs its key (1 byte) and its value (1000 bytes of JSON).
    const value = JSON.stringify('x'.repeat(998));
    await store.set(who, 'a', value);
    await store.set(who, 'b', value);
    // 2,002 bytes kept; c would weigh 51 more, 2,053 in all.
    const error = await refusal(store.set(who, 'c', JSON.stringify('z'.repeat(48))));
    expect(error.code).toBe('STATE_FULL');
    expect(error.message).toBe(
      `STATE_FULL: storing "c" would bring this principal's keys and values to 2.0 KiB, past the 2 KiB kept per principal ` +
        '(stateMaxBytes, --state-max-bytes); nothing was written; remove keys no longer needed (state.remove), or give entries a time to live',
    );
    // Replacing b with a value as large weighs b's old value off first.
    await store.set(who, 'b', JSON.stringify('y'.repeat(998)));
    expect(await store.keys(who)).toEqual(['a', 'b']);
  });

  test('concurrent writers of one key: one whole value wins, and it is the same for every reader', async () => {
    const [first, second] = backend.shared ? [await open(), await open()] : [await open(), undefined];
    const other = second ?? first;
    const who = principal();
    const values = Array.from({ length: 20 }, (_, i) => JSON.stringify({ writer: i, pad: String(i).repeat(5_000) }));
    await Promise.all(values.map((value, i) => (i % 2 === 0 ? first : other).set(who, 'k', value)));
    const seen = await first.get(who, 'k');
    expect(values).toContain(seen);
    expect(await other.get(who, 'k')).toBe(seen);
    expect(await first.keys(who)).toEqual(['k']);
    // One after another, the last write wins.
    await first.set(who, 'k', '"earlier"');
    await other.set(who, 'k', '"later"');
    expect(await first.get(who, 'k')).toBe('"later"');
  });

  test.runIf(backend.shared)("two stores over the same storage see each other's writes and removals", async () => {
    const [a, b] = [await open(), await open()];
    const who = principal();
    await a.set(who, 'k', '{"from":"a"}');
    expect(await b.get(who, 'k')).toBe('{"from":"a"}');
    expect(await b.keys(who)).toEqual(['k']);
    expect(await b.remove(who, 'k')).toBe(true);
    expect(await a.get(who, 'k')).toBeUndefined();
  });

  test.runIf(backend.shared)('a store opened again after close (a restart) finds what was stored', async () => {
    const who = principal();
    const before = await backend.open();
    await before.set(who, 'k', '[1,2,3]');
    await before.close();
    const after = await open();
    expect(await after.get(who, 'k')).toBe('[1,2,3]');
    expect(await after.keys(who)).toEqual(['k']);
  });

  test.runIf(!backend.shared)('what the memory store keeps is gone with it', async () => {
    const who = principal();
    await (await open()).set(who, 'k', '1');
    expect(await (await open()).get(who, 'k')).toBeUndefined();
  });

  test.runIf(backend.injectedClock)(
    'an entry is there until its time to live is over, then gone from get, keys and remove, and its room is free',
    async () => {
      const store = await open({ ...LIMITS, stateMaxKeys: 2 });
      const who = principal();
      await store.set(who, 'short', '1', { ttlMs: 1_000 });
      await store.set(who, 'kept', '2');
      clock.now += 999;
      expect(await store.get(who, 'short')).toBe('1');
      expect(await store.keys(who)).toEqual(['kept', 'short']);
      clock.now += 1;
      expect(await store.get(who, 'short')).toBeUndefined();
      expect(await store.remove(who, 'short')).toBe(false);
      // The expired key's place is free for a new one, though nothing but its expiry removed it.
      await store.set(who, 'new', '3');
      expect(await store.keys(who)).toEqual(['kept', 'new']);
      // A store without a ttl keeps the value from then on.
      await store.set(who, 'new', '4', { ttlMs: 10 });
      await store.set(who, 'new', '5');
      clock.now += 1_000_000;
      expect(await store.get(who, 'new')).toBe('5');
    },
  );

  test.runIf(!backend.injectedClock)('an entry expires with Redis once its time to live is over, from get and keys', async () => {
    const store = await open();
    const who = principal();
    await store.set(who, 'short', '1', { ttlMs: 50 });
    await store.set(who, 'long', '2', { ttlMs: 3_600_000 });
    await until('the 50 ms entry to expire', async () => (await store.get(who, 'short')) === undefined);
    expect(await store.keys(who)).toEqual(['long']);
    expect(await store.get(who, 'long')).toBe('2');
  });

  test.runIf(backend.name === 'redis')(
    "a Redis that can't be reached fails each operation at once, saying so, without its password",
    async () => {
      const port = await freePort();
      const store = RedisStateStore.open(`redis://user:secret-pass@127.0.0.1:${port}`, LIMITS, () => {});
      opened.push(store);
      const error = await refusal(store.set(principal(), 'k', '1'));
      expect(error.code).toBe('STATE_UNAVAILABLE');
      expect(error.message).toBe(
        `STATE_UNAVAILABLE: the state store at redis://127.0.0.1:${port} can't be reached (connect ECONNREFUSED 127.0.0.1:${port}); ` +
          'nothing was read or written; it is safe to retry once the store can be reached again',
      );
      expect((await refusal(store.keys(principal()))).code).toBe('STATE_UNAVAILABLE');
    },
  );

  test.runIf(backend.name === 'dir')("a directory that can't be written fails each operation saying so", async () => {
    const file = join(makeTempDir('state-file'), 'not-a-dir');
    writeFileSync(file, '');
    const store = new DirStateStore(file, LIMITS, now);
    const error = await refusal(store.set(principal(), 'k', '1'));
    expect(error.code).toBe('STATE_UNAVAILABLE');
    expect(error.message).toMatch(
      new RegExp(
        `^STATE_UNAVAILABLE: the state directory ${file} could not be read or written \\(ENOTDIR: .*\\); fix the directory or free space; it is safe to retry once the store can be reached again$`,
      ),
    );
  });

  test.runIf(backend.name === 'dir')(
    'the directory is 0700, each principal folder 0700, each entry 0600, named so no key can leave it',
    async () => {
      const store = await open();
      const who = principal();
      await store.set(who, '../../escape', '1');
      await store.set(who, 'plain', '2');
      expect(statSync(stateDir()).mode & 0o777).toBe(0o700);
      const folders = readdirSync(stateDir());
      expect(folders.every((name) => /^[0-9a-f]{64}$/.test(name))).toBe(true);
      const files = folders.flatMap((folder) => {
        expect(statSync(join(stateDir(), folder)).mode & 0o777).toBe(0o700);
        return readdirSync(join(stateDir(), folder)).map((name) => join(stateDir(), folder, name));
      });
      expect(files.length).toBeGreaterThanOrEqual(2);
      for (const file of files) {
        expect(file).toMatch(/\/[0-9a-f]{64}$/);
        expect(statSync(file).mode & 0o777).toBe(0o600);
      }
      expect(readdirSync(join(stateDir(), '..'))).toEqual(['state']);
    },
  );
});

describe('the store the settings name', () => {
  test('is memory by default, the directory with stateDir(), Redis with stateUrl', async () => {
    const log = (): void => {};
    const stores = [
      await openStateStore(DEFAULT_SETTINGS, log),
      await openStateStore({ ...DEFAULT_SETTINGS, stateDir: makeTempDir('state-open') }, log),
      await openStateStore({ ...DEFAULT_SETTINGS, stateUrl: `redis://127.0.0.1:${await freePort()}` }, log),
    ];
    opened.push(...stores);
    expect(stores.map((store) => store.constructor)).toEqual([MemoryStateStore, DirStateStore, RedisStateStore]);
  });
});
