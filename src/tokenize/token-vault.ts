/**
 * Where tokens and their values are kept, per scope (a session, or a principal over HTTP): the one
 * interface, asynchronous so a shared backend can serve it, and its in-memory backend. A value is
 * known by what it is (a string, or a number), whatever label first found it; its token is numbered
 * after the last of its label in the scope, and a number is never given again in the scope's life,
 * so an old token can't come to mean another value.
 */
import type { TokenValue } from './token-text.js';
import { formatToken } from './token-text.js';

/** Whose tokens: the key a scope is known by (src/tokenize/tokenizer.ts). */
export type TokenScope = string;

export interface TokenRequest {
  readonly label: string;
  readonly value: TokenValue;
}

export interface TokenVault {
  /** Each value's token in the scope: the one it has (its time to live renewed), else a new one. */
  tokensFor(scope: TokenScope, requests: readonly TokenRequest[]): Promise<string[]>;
  /** Each token's value in the scope (its time to live renewed), or undefined: unknown, expired, or another scope's. */
  valuesOf(scope: TokenScope, tokens: readonly string[]): Promise<Array<TokenValue | undefined>>;
  /** Drops the scope's tokens and numbering: for a scope that can't come back (an HTTP session that ended). */
  forget(scope: TokenScope): Promise<void>;
}

export interface VaultLimits {
  /** How long a token lives after its last use (settings.tokenize.ttlMs). */
  readonly ttlMs: number;
  /** Values a scope keeps; past it, the least recently used are forgotten (settings.tokenize.maxValues). */
  readonly maxValues: number;
}

/**
 * 60 s: the longest a forgotten entry's memory is held before a sweep frees it (a sweep reads
 * the whole scope, so it runs at most this often; an entry past its time is never used meanwhile).
 */
const SWEEP_EVERY_MS = 60_000;
/**
 * A tenth: past maxValues, the least recently used tenth of the bound is forgotten at once, so the
 * sort that finds them runs once per tenth of new values, not at every one.
 */
const EVICT_FRACTION = 0.1;

interface Entry {
  readonly token: string;
  readonly value: TokenValue;
  /** Epoch ms from which the entry is forgotten: its last use plus the time to live. */
  expiresAt: number;
  /** When it was last used, as the scope's count of uses: which is least recent, within a millisecond too. */
  lastUse: number;
}

/** One scope's tokens. */
class Shelf {
  readonly strings = new Map<string, Entry>();
  readonly numbers = new Map<number, Entry>();
  readonly byToken = new Map<string, Entry>();
  /** The last number given, per label: kept when entries go, so no number is given twice. */
  readonly lastNumber = new Map<string, number>();
  nextSweep = 0;
  private uses = 0;

  get size(): number {
    return this.byToken.size;
  }

  entryOf(value: TokenValue): Entry | undefined {
    return typeof value === 'string' ? this.strings.get(value) : this.numbers.get(value);
  }

  add(label: string, value: TokenValue, expiresAt: number): Entry {
    const n = (this.lastNumber.get(label) ?? 0) + 1;
    this.lastNumber.set(label, n);
    const entry: Entry = { token: formatToken(label, n), value, expiresAt, lastUse: ++this.uses };
    if (typeof value === 'string') this.strings.set(value, entry);
    else this.numbers.set(value, entry);
    this.byToken.set(entry.token, entry);
    return entry;
  }

  use(entry: Entry, expiresAt: number): void {
    entry.expiresAt = expiresAt;
    entry.lastUse = ++this.uses;
  }

  drop(entry: Entry): void {
    if (typeof entry.value === 'string') this.strings.delete(entry.value);
    else this.numbers.delete(entry.value);
    this.byToken.delete(entry.token);
  }

  /** Frees the entries past their time (at most every SWEEP_EVERY_MS), then the least recently used past `maxValues`. */
  trim(now: number, maxValues: number): void {
    if (now >= this.nextSweep) {
      this.nextSweep = now + SWEEP_EVERY_MS;
      for (const entry of this.byToken.values()) if (entry.expiresAt <= now) this.drop(entry);
    }
    if (this.size <= maxValues) return;
    const keep = maxValues - Math.floor(maxValues * EVICT_FRACTION);
    const oldest = [...this.byToken.values()].sort((a, b) => a.lastUse - b.lastUse);
    for (const entry of oldest.slice(0, this.size - keep)) this.drop(entry);
  }
}

/** Tokens in the server's memory: gone with the process, each scope bounded by count and time. */
export class MemoryTokenVault implements TokenVault {
  private readonly shelves = new Map<TokenScope, Shelf>();

  constructor(
    private readonly limits: VaultLimits,
    private readonly now: () => number = Date.now,
  ) {}

  tokensFor(scope: TokenScope, requests: readonly TokenRequest[]): Promise<string[]> {
    let shelf = this.shelves.get(scope);
    if (shelf === undefined) this.shelves.set(scope, (shelf = new Shelf()));
    const now = this.now();
    const expiresAt = now + this.limits.ttlMs;
    const tokens = requests.map(({ label, value }) => {
      const known = shelf.entryOf(value);
      if (known !== undefined && known.expiresAt > now) {
        shelf.use(known, expiresAt);
        return known.token;
      }
      if (known !== undefined) shelf.drop(known);
      return shelf.add(label, value, expiresAt).token;
    });
    shelf.trim(now, this.limits.maxValues);
    return Promise.resolve(tokens);
  }

  valuesOf(scope: TokenScope, tokens: readonly string[]): Promise<Array<TokenValue | undefined>> {
    const shelf = this.shelves.get(scope);
    const now = this.now();
    return Promise.resolve(
      tokens.map((token) => {
        const entry = shelf?.byToken.get(token);
        if (entry === undefined || entry.expiresAt <= now) return undefined;
        shelf!.use(entry, now + this.limits.ttlMs);
        return entry.value;
      }),
    );
  }

  forget(scope: TokenScope): Promise<void> {
    this.shelves.delete(scope);
    return Promise.resolve();
  }
}
