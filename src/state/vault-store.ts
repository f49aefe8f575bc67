/**
 * The part of a shared state store (a directory, Redis) that keeps the tokenizer's vault
 * (src/tokenize/stored-vault.ts, docs/tokenize.md): entries by key in spaces of their own, apart
 * from every principal's state so no script can `load` them; a write that succeeds only where the
 * key is absent, so two instances never both win one key; a time to live renewed by use; and
 * counters that never give a number twice. The memory store has none: the tokenizer keeps its own.
 */

/** A space's key: letters, digits, `_` and `-` (what a file name and a Redis key both hold as is). */
export const VAULT_KEY = /^[A-Za-z0-9_-]{1,200}$/;

export interface VaultEntry {
  readonly key: string;
  readonly value: string;
}

export interface VaultStore {
  /** Each key's value, renewed to live `ttlMs` from now; undefined where the key is absent or past its time (and left so). */
  touch(space: string, keys: readonly string[], ttlMs: number): Promise<Array<string | undefined>>;
  /** Writes each entry, to live `ttlMs`, only where its key is absent or past its time: true where written. */
  add(space: string, entries: readonly VaultEntry[], ttlMs: number): Promise<boolean[]>;
  remove(space: string, keys: readonly string[]): Promise<void>;
  /**
   * Takes `count` numbers of the space's `counter` that were never taken before, in this store or
   * any other instance over it, whatever has expired since: returns the first (they follow on).
   */
  reserve(space: string, counter: string, count: number): Promise<number>;
  /**
   * Deletes the space's entries past their time; returns the live ones whose keys start with
   * `prefix` beyond the `keep` that expire last, soonest to expire first.
   */
  overflow(space: string, prefix: string, keep: number): Promise<VaultEntry[]>;
  /** Removes the space whole: its entries and its counters. */
  drop(space: string): Promise<void>;
}

/** Throws for a key the vault would never make: a bug, not a user's input. */
export function checkVaultKey(key: string): void {
  if (!VAULT_KEY.test(key)) throw new Error(`state: ${JSON.stringify(key)} is not a vault key (${String(VAULT_KEY)})`);
}
