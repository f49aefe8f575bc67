/**
 * Scripts' state (`store`/`load`): JSON values by key, kept per principal, behind one interface
 * with three backends (memory-store.ts, dir-store.ts, redis-store.ts). Values travel as JSON text,
 * as the script's side serializes them: a value's size is its text's UTF-8 bytes, measured once,
 * exactly, with nothing parsed. Each write is atomic per key; two writers of one key: the last
 * write wins. Every backend checks keys and limits with entry-checks.ts, so each says the same.
 */
import { createHash } from 'node:crypto';
import type { VaultStore } from './vault-store.js';

/**
 * Whose state (and, over HTTP, whose scripts): a stdio server and `run` have one (LOCAL_PRINCIPAL);
 * over HTTP, each name the tokens file gives a bearer token, or SHARED_PRINCIPAL (docs/config.md).
 */
export type Principal = string;

/** The principal of a stdio server's one client, and of `run`: a script run by hand sees what the server's scripts stored. */
export const LOCAL_PRINCIPAL: Principal = 'local';

/**
 * The principal of an HTTP caller when no tokens file names one: everyone who holds the one
 * `--http-token` (or, without one, everyone who can reach the server), in every session.
 */
export const SHARED_PRINCIPAL: Principal = 'shared';

/** A principal or a key as a fixed-length name a file system or a Redis key can hold whatever it is: its SHA-256, in hex. */
export function digestName(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export interface SetOptions {
  /** Milliseconds until the entry is gone, a whole number from 1; absent: kept until removed. */
  readonly ttlMs?: number;
}

export interface StateStore {
  /** The JSON text stored under `key`, or undefined when it is absent or its time to live is over. */
  get(principal: Principal, key: string): Promise<string | undefined>;
  /**
   * Stores `json` (JSON text, as `JSON.stringify` made it; not parsed here) under `key`, replacing
   * what was there. Throws `StateError` (nothing written) for a bad key or time to live, or past a limit.
   */
  set(principal: Principal, key: string, json: string, options?: SetOptions): Promise<void>;
  /** The principal's live keys that start with `prefix` (all when absent), sorted. */
  keys(principal: Principal, prefix?: string): Promise<string[]>;
  /** Removes `key`; true when it was there (and live). */
  remove(principal: Principal, key: string): Promise<boolean>;
  /** Lets go of what the store holds open (a connection); its data stays where it lives. */
  close(): Promise<void>;
  /**
   * Where the tokenizer keeps its vault in this store, so instances sharing the store share tokens
   * (docs/tokenize.md); undefined in memory, where the tokenizer keeps its own.
   */
  readonly vaultStore: VaultStore | undefined;
}

/** The limits every backend applies, per principal: the settings of the same names. */
export interface StateLimits {
  readonly stateValueMaxBytes: number;
  readonly stateMaxBytes: number;
  readonly stateMaxKeys: number;
}

/** Milliseconds since the epoch: `Date.now` unless a test gives its own. */
export type Now = () => number;
