/**
 * Tokens in the state store (src/tokenize/stored-vault.ts): tokenizers over one store, as the
 * instances of a team over one state directory or one Redis, share their tokens; concurrent first
 * sightings never give one number twice; the time to live, the bound and a restart behave as in
 * docs/tokenize.md. Each backend: a directory, and a real redis-server started here (skipped where
 * it is missing, saying so, and failing under CI=true).
 */
import { readdirSync } from 'node:fs';
import { createClient } from '@redis/client';
import { describe, expect, test } from 'vitest';
import { DEFAULT_TOKENIZE, type TokenizeSettings } from '../../src/config/tokenize-setting.js';
import type { StateStore } from '../../src/state/state-store.js';
import { STORED_TOKENS_RECHECK_MS, StoredTokenVault } from '../../src/tokenize/stored-vault.js';
import { SWEEP_EVERY_MS } from '../../src/tokenize/token-vault.js';
import { Tokenizer } from '../../src/tokenize/tokenizer.js';
import { stateBackends } from '../support/state-backends.js';
import { until } from '../support/waiting.js';

/** The tokenizers' clock (and the directory's), moved by hand; Redis keeps its own time. */
const clock = { now: 1_700_000_000_000 };
const now = (): number => clock.now;

const { backends, opened, stateDir, redisUrl } = stateBackends('stored-vault.test.ts', now);

let scopes = 0;

describe.each(backends)('tokens kept in the $name state store', (backend) => {
  /** A tokenizer as one server instance has it: its own state store over the shared storage. */
  async function instance(over: Partial<TokenizeSettings> = {}): Promise<{ tokenizer: Tokenizer; state: StateStore }> {
    const settings = { ...DEFAULT_TOKENIZE, ...over };
    const state = await backend.open();
    opened.push(state);
    return { tokenizer: new Tokenizer(settings, new StoredTokenVault(state.vaultStore!, settings, now)), state };
  }
  const scope = (): string => `principal-${++scopes}`;

  test('a token one instance gave, another restores; the same value there gets the same token, a new one the next number', async () => {
    const [a, b] = [await instance(), await instance()];
    const who = scope();
    expect(await a.tokenizer.forScope(who).tokenizeText('ada@example.org, +1 415-555-0143')).toBe('[EMAIL_1], [PHONE_1]');
    expect(await b.tokenizer.forScope(who).restoreText('Dear [EMAIL_1] ([PHONE_1])')).toEqual({
      value: 'Dear ada@example.org (+1 415-555-0143)',
      unknown: [],
    });
    expect(await b.tokenizer.forScope(who).tokenizeText('bob@example.org ada@example.org')).toBe('[EMAIL_2] [EMAIL_1]');
    expect((await a.tokenizer.forScope(who).restoreValue({ to: '[EMAIL_2]' })).value).toEqual({ to: 'bob@example.org' });
    // Another principal's scope knows none of them.
    expect((await b.tokenizer.forScope(scope()).restoreText('[EMAIL_1]')).unknown).toEqual(['[EMAIL_1]']);
  });

  test('instances meeting the same and different values at once never give one number to two values, nor two tokens to one', async () => {
    const instances = await Promise.all([instance(), instance(), instance(), instance()]);
    const who = scope();
    const shared = Array.from({ length: 30 }, (_, i) => `shared${i}@example.org`);
    const own = (n: number) => Array.from({ length: 10 }, (_, i) => `own${n}-${i}@example.org`);
    // Each instance meets the shared values in its own order, with ten of its own, all at once.
    const texts = instances.map((_, n) => [...shared.slice(n * 7), ...own(n), ...shared.slice(0, n * 7)]);
    const tokenized = await Promise.all(
      instances.map(({ tokenizer }, n) => tokenizer.forScope(who).tokenizeText(texts[n]!.join(' '))),
    );
    const tokenOf = new Map<string, string>();
    tokenized.forEach((text, n) => {
      const tokens = text.split(' ');
      expect(tokens).toHaveLength(texts[n]!.length);
      texts[n]!.forEach((value, i) => {
        expect(tokenOf.get(value) ?? tokens[i]).toBe(tokens[i]);
        tokenOf.set(value, tokens[i]!);
      });
    });
    expect(tokenOf.size).toBe(70);
    expect(new Set(tokenOf.values()).size).toBe(70);
    // Every instance restores every token to its one value.
    for (const { tokenizer } of instances) {
      const restored = await tokenizer.forScope(who).restoreText([...tokenOf.values()].join(' '));
      expect(restored).toEqual({ value: [...tokenOf.keys()].join(' '), unknown: [] });
    }
  });

  test('a restart keeps the tokens and their numbering: a new instance over the same store restores them and counts on', async () => {
    const who = scope();
    const before = await instance();
    expect(await before.tokenizer.forScope(who).tokenizeText('ada@example.org bob@example.org')).toBe('[EMAIL_1] [EMAIL_2]');
    opened.splice(opened.indexOf(before.state), 1);
    await before.state.close();
    const after = await instance();
    const scopeTokens = after.tokenizer.forScope(who);
    expect((await scopeTokens.restoreCode('send("[EMAIL_2]")')).value).toBe('send("bob@example.org")');
    expect(await scopeTokens.tokenizeText('eve@example.org ada@example.org')).toBe('[EMAIL_3] [EMAIL_1]');
  });

  test('a token is forgotten its time to live after its last use, and its value met again gets a new number', async () => {
    const ttlMs = backend.injectedClock ? 10_000 : 400;
    const [a, b] = [await instance({ ttlMs }), await instance({ ttlMs })];
    const who = scope();
    expect(await a.tokenizer.forScope(who).tokenizeText('ada@example.org')).toBe('[EMAIL_1]');
    if (backend.injectedClock) {
      // A restore on another instance is a use: it renews the token for both.
      clock.now += 6_000;
      expect((await b.tokenizer.forScope(who).restoreText('[EMAIL_1]')).unknown).toEqual([]);
      clock.now += 6_000;
      expect((await a.tokenizer.forScope(who).restoreText('[EMAIL_1]')).unknown).toEqual([]);
      clock.now += 10_001;
    } else {
      // Redis expires it on its own clock: waited for in the store, where looking renews nothing.
      const store = a.state.vaultStore!;
      await until('the token to expire in Redis', async () => (await store.overflow(who, 't-', 0)).length === 0);
      clock.now += STORED_TOKENS_RECHECK_MS;
    }
    expect(await b.tokenizer.forScope(who).restoreText('[EMAIL_1]')).toEqual({ value: '[EMAIL_1]', unknown: ['[EMAIL_1]'] });
    expect((await a.tokenizer.forScope(who).restoreText('[EMAIL_1]')).unknown).toEqual(['[EMAIL_1]']);
    expect(await b.tokenizer.forScope(who).tokenizeText('ada@example.org')).toBe('[EMAIL_2]');
  });

  test('past maxValues a scope forgets its least recently used values, at the next sweep', async () => {
    const settings = { maxValues: 2 };
    const [a, b] = [await instance(settings), await instance(settings)];
    const who = scope();
    /** Time moves on: the test's clock, and (the order of expiries being Redis's own there) Redis's by a millisecond. */
    const later = async (ms: number): Promise<void> => {
      clock.now += ms;
      const from = Date.now();
      if (!backend.injectedClock) await until('a millisecond to pass', () => Date.now() > from);
    };
    expect(await a.tokenizer.forScope(who).tokenizeText('a@example.org')).toBe('[EMAIL_1]');
    await later(1_000);
    expect(await b.tokenizer.forScope(who).tokenizeText('b@example.org')).toBe('[EMAIL_2]');
    await later(1_000);
    expect(await a.tokenizer.forScope(who).tokenizeText('c@example.org')).toBe('[EMAIL_3]');
    await later(SWEEP_EVERY_MS);
    // This use of b renews it, then the sweep finds three values: the least recently used (a) goes.
    expect(await a.tokenizer.forScope(who).tokenizeText('b@example.org')).toBe('[EMAIL_2]');
    expect((await b.tokenizer.forScope(who).restoreText('[EMAIL_1] [EMAIL_2] [EMAIL_3]')).unknown).toEqual(['[EMAIL_1]']);
    expect((await a.tokenizer.forScope(who).restoreText('[EMAIL_1]')).unknown).toEqual(['[EMAIL_1]']);
  });

  test("no name in the store holds a value, and no script's state lists the tokens", async () => {
    const { tokenizer, state } = await instance({ fields: ['name'] });
    const who = scope();
    const values = ['secret.person@example.org', 'Ada Lovelace'];
    await tokenizer.forScope(who).tokenizeValue({ email: values[0], name: values[1] });
    const names = await storedNames();
    expect(names.length).toBeGreaterThan(0);
    expect(
      names.filter((name) => values.some((value) => name.includes(value) || name.includes(value.split(/[ @]/)[0]!))),
    ).toEqual([]);
    expect(await state.keys(who)).toEqual([]);
  });

  /** Every name the backend holds: the directory's paths, or Redis's keys. */
  async function storedNames(): Promise<string[]> {
    if (backend.injectedClock) return readdirSync(stateDir(), { recursive: true }).map(String);
    const client = createClient({ url: redisUrl() });
    await client.connect();
    try {
      return await client.keys('*');
    } finally {
      await client.close();
    }
  }
});
