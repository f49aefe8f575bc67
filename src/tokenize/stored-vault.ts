/**
 * Tokens kept in the state store (`stateDir`, `stateUrl`), so the instances that share it share
 * them and a restart keeps them (docs/tokenize.md). Per scope, a space of the store's vault
 * (src/state/vault-store.ts) holds each token with its value (`["[EMAIL_7]","ada@example.org"]`)
 * under two keys: the token (`t-EMAIL_7`) and the value's SHA-256 (`v-<digest>`), with the time
 * to live. A new value's number comes from the label's counter in the store, which never gives one
 * twice; the entry is written under the token's key, then the value's, each only where absent: of
 * two instances meeting one value at once, the second finds the first's entry and takes its token.
 *
 * What an instance learned from the store it trusts for STORED_TOKENS_RECHECK_MS, without asking
 * again: the next use after that renews the entries in the store and reads them back.
 */
import { createHash } from 'node:crypto';
import { StateError } from '../state/state-error.js';
import { ADDED, type VaultStore } from '../state/vault-store.js';
import { formatToken, type TokenValue } from './token-text.js';
import {
  EVICT_FRACTION,
  ownCopy,
  SWEEP_EVERY_MS,
  type TokenRequest,
  type TokenScope,
  type TokenVault,
  type VaultLimits,
} from './token-vault.js';

/**
 * 60 s, or a tenth of ttlMs when that is shorter: how long an instance uses a token it learned
 * from the state store before asking the store again (which renews the token's time to live
 * there). So a token lives ttlMs after its last use give or take this, and a token another
 * instance dropped (past maxValues) may still be given or restored here for this long.
 */
export const STORED_TOKENS_RECHECK_MS = 60_000;

/**
 * 5: the most rounds one request to the vault takes while other instances give the same values
 * tokens at the same moment (each round settles at least one); past it, STATE_UNAVAILABLE (try again).
 */
const MAX_ROUNDS = 5;

const VALUE_PREFIX = 'v-';
const TOKEN_PREFIX = 't-';

/** A value's key: the SHA-256 of its JSON, so `"5"` and `5` are apart and no value is written in a name. */
function valueKey(value: TokenValue): string {
  return VALUE_PREFIX + createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

/** `[EMAIL_7]` → `t-EMAIL_7`. */
function tokenKey(token: string): string {
  return TOKEN_PREFIX + token.slice(1, -1);
}

/** What the store holds for a token, under its key and its value's: `["[EMAIL_7]","ada@example.org"]`. */
function entryText(token: string, value: TokenValue): string {
  return JSON.stringify([token, value]);
}

/** An entry as entryText wrote it; undefined for none (or for anything else found there). */
function readEntry(text: string | undefined): { token: string; value: TokenValue } | undefined {
  if (text === undefined) return undefined;
  try {
    const [token, value] = JSON.parse(text) as [unknown, unknown];
    return typeof token === 'string' && (typeof value === 'string' || typeof value === 'number') ? { token, value } : undefined;
  } catch {
    return undefined;
  }
}

interface Known {
  readonly token: string;
  readonly value: TokenValue;
  /** When the store last confirmed it (and renewed it). */
  readonly checkedAt: number;
}

/** What this instance learned of one scope's tokens, bounded like a memory vault. */
class Recall {
  private readonly strings = new Map<string, Known>();
  private readonly numbers = new Map<number, Known>();
  private readonly byToken = new Map<string, Known>();
  nextSweep = 0;

  constructor(private readonly maxValues: number) {}

  ofValue(value: TokenValue): Known | undefined {
    return typeof value === 'string' ? this.strings.get(value) : this.numbers.get(value);
  }

  ofToken(token: string): Known | undefined {
    return this.byToken.get(token);
  }

  learn(learned: Known): void {
    const known = { ...learned, value: ownCopy(learned.value) };
    this.forgetValue(known.value);
    this.forgetToken(known.token);
    if (typeof known.value === 'string') this.strings.set(known.value, known);
    else this.numbers.set(known.value, known);
    this.byToken.set(known.token, known);
    if (this.byToken.size <= this.maxValues) return;
    // The first learned go first, a tenth of the bound at once: what they were is in the store, a read away.
    let drop = this.byToken.size - this.maxValues + Math.floor(this.maxValues * EVICT_FRACTION);
    for (const token of this.byToken.keys()) {
      if (drop-- <= 0) break;
      this.forgetToken(token);
    }
  }

  forgetToken(token: string): void {
    const known = this.byToken.get(token);
    if (known === undefined) return;
    this.byToken.delete(token);
    if (this.ofValue(known.value) === known) this.forgetValue(known.value);
  }

  private forgetValue(value: TokenValue): void {
    if (typeof value === 'string') this.strings.delete(value);
    else this.numbers.delete(value);
  }
}

export class StoredTokenVault implements TokenVault {
  private readonly recalls = new Map<TokenScope, Recall>();
  private readonly recheckMs: number;

  constructor(
    private readonly store: VaultStore,
    private readonly limits: VaultLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.recheckMs = Math.min(STORED_TOKENS_RECHECK_MS, Math.ceil(limits.ttlMs / 10));
  }

  async tokensFor(scope: TokenScope, requests: readonly TokenRequest[]): Promise<string[]> {
    const recall = this.recallOf(scope);
    const now = this.now();
    const tokens = new Array<string>(requests.length);
    let ask: number[] = [];
    // A value asked again is settled once: its later places take the first one's token.
    const asked = { strings: new Map<string, number>(), numbers: new Map<number, number>() };
    const repeats: Array<[at: number, first: number]> = [];
    requests.forEach(({ value }, i) => {
      const known = recall.ofValue(value);
      if (known !== undefined && now - known.checkedAt < this.recheckMs) {
        tokens[i] = known.token;
        return;
      }
      const index = (typeof value === 'string' ? asked.strings : asked.numbers) as Map<TokenValue, number>;
      const first = index.get(value);
      if (first !== undefined) return void repeats.push([i, first]);
      index.set(value, i);
      ask.push(i);
    });
    for (let round = 0; ask.length > 0; round++) {
      if (round === MAX_ROUNDS) throw this.contended();
      ask = await this.settle(scope, recall, requests, ask, tokens, now);
    }
    for (const [at, first] of repeats) tokens[at] = tokens[first]!;
    await this.trim(scope, recall, now);
    return tokens;
  }

  async valuesOf(scope: TokenScope, tokens: readonly string[]): Promise<Array<TokenValue | undefined>> {
    const recall = this.recallOf(scope);
    const now = this.now();
    const values = new Array<TokenValue | undefined>(tokens.length);
    const ask: number[] = [];
    tokens.forEach((token, i) => {
      const known = recall.ofToken(token);
      if (known !== undefined && now - known.checkedAt < this.recheckMs) values[i] = known.value;
      else ask.push(i);
    });
    if (ask.length === 0) return values;
    const { ttlMs } = this.limits;
    const held = await this.store.touch(
      scope,
      ask.map((i) => tokenKey(tokens[i]!)),
      ttlMs,
    );
    const found = ask.flatMap((i, k) => {
      const entry = readEntry(held[k]);
      return entry !== undefined && entry.token === tokens[i] ? [{ i, entry: held[k]!, value: entry.value }] : [];
    });
    // The value's key is renewed too, and must still hold this entry: else the token is gone.
    const named = await this.store.touch(
      scope,
      found.map(({ value }) => valueKey(value)),
      ttlMs,
    );
    found.forEach(({ i, entry, value }, k) => {
      const token = tokens[i]!;
      if (named[k] !== entry) return recall.forgetToken(token);
      values[i] = value;
      recall.learn({ token, value, checkedAt: now });
    });
    return values;
  }

  async forget(scope: TokenScope): Promise<void> {
    this.recalls.delete(scope);
    await this.store.drop(scope);
  }

  private recallOf(scope: TokenScope): Recall {
    let recall = this.recalls.get(scope);
    if (recall === undefined) this.recalls.set(scope, (recall = new Recall(this.limits.maxValues)));
    return recall;
  }

  /**
   * One round for the values at `ask`: those the store knows, renewed and taken; the others given
   * new numbers. Returns the values that lost a race to another instance, for another round.
   */
  private async settle(
    scope: TokenScope,
    recall: Recall,
    requests: readonly TokenRequest[],
    ask: readonly number[],
    tokens: string[],
    now: number,
  ): Promise<number[]> {
    const { ttlMs } = this.limits;
    const named = await this.store.touch(
      scope,
      ask.map((i) => valueKey(requests[i]!.value)),
      ttlMs,
    );
    const found = ask.flatMap((i, k) => {
      const entry = readEntry(named[k]);
      return entry === undefined ? [] : [{ i, entry: named[k]!, token: entry.token }];
    });
    // The token's key is renewed too, and must hold the same entry: else the value is new again.
    const held = await this.store.touch(
      scope,
      found.map(({ token }) => tokenKey(token)),
      ttlMs,
    );
    const fresh = ask.filter((_, k) => readEntry(named[k]) === undefined);
    const broken: string[] = [];
    found.forEach(({ i, entry, token }, k) => {
      if (held[k] === entry) {
        tokens[i] = token;
        recall.learn({ token, value: requests[i]!.value, checkedAt: now });
      } else {
        broken.push(valueKey(requests[i]!.value));
        fresh.push(i);
      }
    });
    await this.store.remove(scope, broken);
    if (fresh.length === 0) return [];

    const numbered = await this.number(
      scope,
      fresh.map((i) => requests[i]!),
    );
    // Under the token's key first: the counter never gives a number twice, so only a store that lost
    // its counter has it taken. Then under the value's: taken, another instance gave the value its token first.
    const taken = await this.store.add(
      scope,
      fresh.map((i, k) => ({
        keys: [tokenKey(numbered[k]!), valueKey(requests[i]!.value)],
        value: entryText(numbered[k]!, requests[i]!.value),
      })),
      ttlMs,
    );
    const retry: number[] = [];
    fresh.forEach((i, k) => {
      if (taken[k] !== ADDED) return void retry.push(i);
      tokens[i] = numbered[k]!;
      recall.learn({ token: numbered[k]!, value: requests[i]!.value, checkedAt: now });
    });
    return retry;
  }

  /** New tokens for `requests`, numbered from each label's counter in the store. */
  private async number(scope: TokenScope, requests: readonly TokenRequest[]): Promise<string[]> {
    const byLabel = new Map<string, number[]>();
    requests.forEach(({ label }, k) => {
      const list = byLabel.get(label);
      if (list === undefined) byLabel.set(label, [k]);
      else list.push(k);
    });
    const tokens = new Array<string>(requests.length);
    for (const [label, list] of byLabel) {
      const first = await this.store.reserve(scope, label, list.length);
      list.forEach((k, n) => (tokens[k] = formatToken(label, first + n)));
    }
    return tokens;
  }

  /** At most every SWEEP_EVERY_MS a scope: the store drops what expired, and this drops the least recently used past maxValues. */
  private async trim(scope: TokenScope, recall: Recall, now: number): Promise<void> {
    if (now < recall.nextSweep) return;
    recall.nextSweep = now + SWEEP_EVERY_MS;
    const over = await this.store.overflow(scope, VALUE_PREFIX, this.limits.maxValues);
    if (over.length === 0) return;
    const keys = over.flatMap(({ key, value }) => {
      const entry = readEntry(value);
      if (entry === undefined) return [key];
      recall.forgetToken(entry.token);
      return [key, tokenKey(entry.token)];
    });
    await this.store.remove(scope, keys);
  }

  private contended(): StateError {
    return new StateError(
      'STATE_UNAVAILABLE',
      `the tokens in the state store kept changing under ${MAX_ROUNDS} rounds in a row (other instances giving the same values tokens at once); try again`,
    );
  }
}
