/**
 * The part of a shared state store (a directory, Redis) that keeps the tokenizer's vault
 * (src/tokenize/stored-vault.ts, docs/tokenize.md): entries by key in spaces of their own, apart
 * from every principal's state so no script can `load` them; an entry kept under several keys (a
 * token's and its value's), written only where each is absent, so two instances never both win
 * one key; a time to live renewed by use; and counters that never give a number twice. The memory
 * store has none: the tokenizer keeps its own.
 */

/** A space's key: letters, digits, `_` and `-` (what a file name and a Redis key both hold as is). */
export const VAULT_KEY = /^[A-Za-z0-9_-]{1,200}$/;

/** An entry as read back: one of its keys, and its value. */
export interface VaultEntry {
  readonly key: string;
  readonly value: string;
}

/** An entry to write: one value under each of its keys, all with one time to live. */
export interface NewVaultEntry {
  readonly keys: readonly string[];
  readonly value: string;
}

/** What add() answers for an entry written under all its keys. */
export const ADDED = -1;

export interface VaultStore {
  /** Each key's value, renewed to live `ttlMs` from now; undefined where the key is absent or past its time (and left so). */
  touch(space: string, keys: readonly string[], ttlMs: number): Promise<Array<string | undefined>>;
  /**
   * Writes each entry, to live `ttlMs`, under its keys in order, each only where it is absent or
   * past its time. Per entry: ADDED, or the index of the first key found taken, and then nothing
   * of that entry is left written.
   */
  add(space: string, entries: readonly NewVaultEntry[], ttlMs: number): Promise<number[]>;
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
