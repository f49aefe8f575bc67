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
  /** Values a scope keeps; past it, the least recently used is forgotten (settings.tokenize.maxValues). */
  readonly maxValues: number;
}

interface Entry {
  readonly token: string;
  readonly value: TokenValue;
  readonly key: string;
  /** Epoch ms past which the entry is forgotten. */
  expiresAt: number;
}

/** One scope's tokens; `byValue` in the order of last use, least recent first. */
class Shelf {
  readonly byValue = new Map<string, Entry>();
  readonly byToken = new Map<string, Entry>();
  /** The last number given, per label: kept when entries go, so no number is given twice. */
  readonly lastNumber = new Map<string, number>();

  touch(entry: Entry, expiresAt: number): void {
    entry.expiresAt = expiresAt;
    this.byValue.delete(entry.key);
    this.byValue.set(entry.key, entry);
  }

  add(label: string, value: TokenValue, key: string, expiresAt: number): Entry {
    const n = (this.lastNumber.get(label) ?? 0) + 1;
    this.lastNumber.set(label, n);
    const entry: Entry = { token: formatToken(label, n), value, key, expiresAt };
    this.byValue.set(key, entry);
    this.byToken.set(entry.token, entry);
    return entry;
  }

  /** Forgets the expired entries, then the least recently used past `maxValues` (both at the front). */
  trim(now: number, maxValues: number): void {
    for (const entry of this.byValue.values()) {
      if (entry.expiresAt > now && this.byValue.size <= maxValues) break;
      this.byValue.delete(entry.key);
      this.byToken.delete(entry.token);
    }
  }
}

/** A value's identity in the vault: the string `42` and the number 42 are two values. */
function valueKey(value: TokenValue): string {
  return typeof value === 'string' ? `s${value}` : `n${value}`;
}

/** Tokens in the server's memory: gone with the process, each scope bounded by count and time. */
export class MemoryTokenVault implements TokenVault {
  private readonly shelves = new Map<TokenScope, Shelf>();

  constructor(
    private readonly limits: VaultLimits,
    private readonly now: () => number = Date.now,
  ) {}

  tokensFor(scope: TokenScope, requests: readonly TokenRequest[]): Promise<string[]> {
    return Promise.resolve(this.tokensNow(scope, requests));
  }

  /** As tokensFor, at once: the memory vault needs no wait. */
  tokensNow(scope: TokenScope, requests: readonly TokenRequest[]): string[] {
    let shelf = this.shelves.get(scope);
    if (shelf === undefined) this.shelves.set(scope, (shelf = new Shelf()));
    const now = this.now();
    const expiresAt = now + this.limits.ttlMs;
    shelf.trim(now, this.limits.maxValues);
    const tokens = requests.map(({ label, value }) => {
      const key = valueKey(value);
      const known = shelf.byValue.get(key);
      if (known !== undefined) {
        shelf.touch(known, expiresAt);
        return known.token;
      }
      return shelf.add(label, value, key, expiresAt).token;
    });
    shelf.trim(now, this.limits.maxValues);
    return tokens;
  }

  valuesOf(scope: TokenScope, tokens: readonly string[]): Promise<Array<TokenValue | undefined>> {
    const shelf = this.shelves.get(scope);
    if (shelf === undefined) return Promise.resolve(tokens.map(() => undefined));
    const now = this.now();
    shelf.trim(now, this.limits.maxValues);
    return Promise.resolve(
      tokens.map((token) => {
        const entry = shelf.byToken.get(token);
        if (entry === undefined) return undefined;
        shelf.touch(entry, now + this.limits.ttlMs);
        return entry.value;
      }),
    );
  }

  forget(scope: TokenScope): Promise<void> {
    this.shelves.delete(scope);
    return Promise.resolve();
  }
}
