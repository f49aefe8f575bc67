/**
 * The tokenizer's part of a shared state store (src/state/vault-store.ts), run against each
 * backend: a directory, and a real redis-server started here on a free port. Where redis-server is
 * missing, its block skips saying so, and fails under CI=true (.ci/run installs it).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DirStateStore } from '../../src/state/dir-store.js';
import type { StateStore } from '../../src/state/state-store.js';
import { ADDED, type VaultStore } from '../../src/state/vault-store.js';
import { stateBackends, TEST_STATE_LIMITS } from '../support/state-backends.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { until } from '../support/waiting.js';

const HOUR_MS = 3_600_000;

/** The directory store's clock, moved by hand; Redis keeps its own. */
const clock = { now: 1_700_000_000_000 };
const now = (): number => clock.now;

const { backends, opened } = stateBackends('vault-store.test.ts', now);

let spaces = 0;

describe.each(backends)("the $name state store's vault", (backend) => {
  async function open(): Promise<{ state: StateStore; vault: VaultStore }> {
    const state = await backend.open();
    opened.push(state);
    if (state.vaultStore === undefined) throw new Error(`the ${backend.name} store has no vault`);
    return { state, vault: state.vaultStore };
  }
  const space = (): string => `space-${++spaces}`;

  /** Waits until `key` is past its time in `space` (Redis's own clock), without renewing it. */
  async function expired(vault: VaultStore, where: string, key: string): Promise<void> {
    if (backend.injectedClock) clock.now += 2 * HOUR_MS;
    else await until(`${key} to expire`, async () => !(await vault.overflow(where, key, 0)).some((entry) => entry.key === key));
  }

  test('an entry is written only where its key is absent, and read back renewed', async () => {
    const { vault } = await open();
    const where = space();
    expect(await vault.add(where, [{ keys: ['k'], value: 'first' }], HOUR_MS)).toEqual([ADDED]);
    expect(
      await vault.add(
        where,
        [
          { keys: ['k'], value: 'second' },
          { keys: ['other'], value: 'o' },
        ],
        HOUR_MS,
      ),
    ).toEqual([0, ADDED]);
    expect(await vault.touch(where, ['k', 'absent', 'other'], HOUR_MS)).toEqual(['first', undefined, 'o']);
    await vault.remove(where, ['k']);
    expect(await vault.touch(where, ['k'], HOUR_MS)).toEqual([undefined]);
  });

  test('an entry is kept under each of its keys, or, one of them taken, under none', async () => {
    const { vault } = await open();
    const where = space();
    await vault.add(where, [{ keys: ['taken'], value: 'theirs' }], HOUR_MS);
    expect(
      await vault.add(
        where,
        [
          { keys: ['t-A_1', 'v-a'], value: 'pair' },
          { keys: ['t-A_2', 'taken'], value: 'lost' },
        ],
        HOUR_MS,
      ),
    ).toEqual([ADDED, 1]);
    expect(await vault.touch(where, ['t-A_1', 'v-a', 't-A_2', 'taken'], HOUR_MS)).toEqual(['pair', 'pair', undefined, 'theirs']);
    // Many keys at once (a listing first, in a directory): the absent read as absent still.
    const keys = Array.from({ length: 40 }, (_, i) => `many-${i}`);
    await vault.add(
      where,
      keys.slice(0, 20).map((key) => ({ keys: [key], value: key })),
      HOUR_MS,
    );
    expect(await vault.touch(where, keys, HOUR_MS)).toEqual(keys.map((key, i) => (i < 20 ? key : undefined)));
  });

  test('two instances writing one key at once: one wins, and both read its value', async () => {
    const [a, b] = [await open(), await open()];
    const where = space();
    const writes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? a : b).vault.add(where, [{ keys: ['k'], value: `writer ${i}` }], HOUR_MS),
      ),
    );
    const winners = writes.flatMap(([outcome], i) => (outcome === ADDED ? [`writer ${i}`] : []));
    expect(winners).toHaveLength(1);
    expect(await a.vault.touch(where, ['k'], HOUR_MS)).toEqual(winners);
    expect(await b.vault.touch(where, ['k'], HOUR_MS)).toEqual(winners);
  });

  test('an entry past its time to live reads as absent and may be written again', async () => {
    const { vault } = await open();
    const where = space();
    const ttlMs = backend.injectedClock ? HOUR_MS : 300;
    await vault.add(where, [{ keys: ['k'], value: 'old' }], ttlMs);
    await expired(vault, where, 'k');
    expect(await vault.touch(where, ['k'], HOUR_MS)).toEqual([undefined]);
    expect(await vault.add(where, [{ keys: ['k'], value: 'new' }], HOUR_MS)).toEqual([ADDED]);
    expect(await vault.touch(where, ['k'], HOUR_MS)).toEqual(['new']);
  });

  test.runIf(backend.injectedClock)('a read renews an entry for its time to live from then', async () => {
    const { vault } = await open();
    const where = space();
    await vault.add(where, [{ keys: ['k'], value: 'v' }], 1_000);
    clock.now += 900;
    expect(await vault.touch(where, ['k'], 1_000)).toEqual(['v']);
    clock.now += 900;
    expect(await vault.touch(where, ['k'], 1_000)).toEqual(['v']);
    clock.now += 1_001;
    expect(await vault.touch(where, ['k'], 1_000)).toEqual([undefined]);
  });

  test('a counter never gives a number twice, across instances at once and after its entries expire', async () => {
    const [a, b] = [await open(), await open()];
    const where = space();
    const counts = Array.from({ length: 24 }, (_, i) => 1 + (i % 3));
    const firsts = await Promise.all(counts.map((count, i) => (i % 2 === 0 ? a : b).vault.reserve(where, 'EMAIL', count)));
    const numbers = firsts.flatMap((first, i) => Array.from({ length: counts[i]! }, (_, n) => first + n));
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(Math.min(...numbers)).toBe(1);
    // Another counter, another space: each counts from 1.
    expect(await a.vault.reserve(where, 'PHONE', 2)).toBe(1);
    expect(await b.vault.reserve(space(), 'EMAIL', 1)).toBe(1);
    // Whatever expired, the count goes on.
    await a.vault.add(where, [{ keys: ['t-EMAIL_1'], value: '"x"' }], backend.injectedClock ? HOUR_MS : 300);
    await expired(a.vault, where, 't-EMAIL_1');
    expect(await b.vault.reserve(where, 'EMAIL', 1)).toBe(Math.max(...numbers) + 1);
  });

  test('overflow drops what expired and names the live entries past those kept, soonest to expire first', async () => {
    const { vault } = await open();
    const where = space();
    if (backend.injectedClock) {
      await vault.add(where, [{ keys: ['v-old'], value: 'gone' }], 1_000);
      clock.now += 2_000;
    }
    for (const [i, key] of ['v-a', 'v-b', 'v-c', 'v-d'].entries()) {
      await vault.add(where, [{ keys: [key], value: key.slice(2) }], HOUR_MS + i * 60_000);
    }
    await vault.add(where, [{ keys: ['t-EMAIL_1'], value: '"x"' }], 60_000);
    expect(await vault.overflow(where, 'v-', 2)).toEqual([
      { key: 'v-a', value: 'a' },
      { key: 'v-b', value: 'b' },
    ]);
    expect(await vault.overflow(where, 'v-', 4)).toEqual([]);
    if (backend.injectedClock) expect(await vault.touch(where, ['v-old'], HOUR_MS)).toEqual([undefined]);
  });

  test("a space is dropped whole, counters and all, and no other space's entries go with it", async () => {
    const { vault } = await open();
    const [gone, kept] = [space(), space()];
    for (const where of [gone, kept]) {
      await vault.add(where, [{ keys: ['k'], value: where }], HOUR_MS);
      await vault.reserve(where, 'EMAIL', 5);
    }
    await vault.drop(gone);
    expect(await vault.touch(gone, ['k'], HOUR_MS)).toEqual([undefined]);
    expect(await vault.reserve(gone, 'EMAIL', 1)).toBe(1);
    expect(await vault.touch(kept, ['k'], HOUR_MS)).toEqual([kept]);
    expect(await vault.reserve(kept, 'EMAIL', 1)).toBe(6);
  });

  test("the vault is apart from scripts' state: no principal's keys list it, not even one named as its space", async () => {
    const { state, vault } = await open();
    const where = space();
    await vault.add(where, [{ keys: ['k'], value: 'v' }], HOUR_MS);
    expect(await state.keys(where)).toEqual([]);
    expect(await state.get(where, 'k')).toBeUndefined();
  });

  test('a key that is not letters, digits, _ and - is refused as a bug, before anything is written', async () => {
    const { vault } = await open();
    await expect(vault.add(space(), [{ keys: ['../x'], value: 'v' }], HOUR_MS)).rejects.toThrow(/is not a vault key/);
    await expect(vault.touch(space(), ['a:b'], HOUR_MS)).rejects.toThrow(/is not a vault key/);
  });
});

test("the directory's vault names its files by keys and counters, never by a value", async () => {
  const dir = makeTempDir('vault-names');
  const state = new DirStateStore(dir, TEST_STATE_LIMITS, now);
  const vault = state.vaultStore;
  await vault.add('named', [{ keys: ['v-0123abcd'], value: 'ada@example.org' }], HOUR_MS);
  await vault.reserve('named', 'EMAIL', 1);
  const tokens = join(dir, 'tokens');
  const [folder] = readdirSync(tokens);
  expect(folder).toMatch(/^[0-9a-f]{64}$/);
  expect(readdirSync(join(tokens, folder!)).sort()).toEqual(['counters', 'v-0123abcd']);
  expect(readdirSync(join(tokens, folder!, 'counters'))).toEqual(['EMAIL@0']);
});
