/**
 * The rules every state backend applies, written once: what a key may be, what a time to live may
 * be, what one entry weighs, and whether a principal has room for it. Each throws `StateError`
 * with the rule, the figure and what to do.
 */
import { formatBytes, formatBytesRoughly, groupThousands } from '../../common/format-numbers.js';
import { SETTINGS } from '../config/settings.js';
import { describeInput, describeType, quoteInput } from '../support/echo.js';
import { StateError } from './state-error.js';
import type { SetOptions, StateLimits } from './state-store.js';

/**
 * 512: the longest key, in UTF-16 code units (a string's length). A longer key, an empty one, or one
 * holding a lone surrogate (which UTF-8 can't keep apart from another) is refused: STATE_KEY_INVALID.
 */
export const STATE_KEY_MAX_CHARS = 512;

const LONE_SURROGATE = /\p{Cs}/u;

export function checkKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key === '' || key.length > STATE_KEY_MAX_CHARS || LONE_SURROGATE.test(key)) {
    const got =
      typeof key !== 'string'
        ? describeType(key)
        : key === ''
          ? 'an empty string'
          : key.length > STATE_KEY_MAX_CHARS
            ? `${groupThousands(key.length)} characters`
            : 'a string with a lone surrogate';
    throw new StateError(
      'STATE_KEY_INVALID',
      `a key must be a non-empty string of at most ${STATE_KEY_MAX_CHARS} characters, with no lone surrogate; got ${got}`,
    );
  }
}

/** The time to live in milliseconds, or undefined when none was asked. */
export function checkTtl(options: SetOptions | undefined): number | undefined {
  const ttlMs = options?.ttlMs;
  if (ttlMs === undefined) return undefined;
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) {
    throw new StateError(
      'STATE_TTL_INVALID',
      `ttlMs must be a whole number of milliseconds from 1; got ${describeInput(ttlMs)}; leave it out to keep the value until it is removed`,
    );
  }
  return ttlMs;
}

/** What one entry weighs against stateMaxBytes: its key's and its value's UTF-8 bytes. */
export function entryBytes(key: string, json: string): number {
  return Buffer.byteLength(key) + Buffer.byteLength(json);
}

/** Throws past stateValueMaxBytes; returns the value's bytes. */
export function checkValue(key: string, json: string, limits: StateLimits): number {
  const bytes = Buffer.byteLength(json);
  if (bytes > limits.stateValueMaxBytes) {
    const spec = SETTINGS.stateValueMaxBytes;
    throw new StateError(
      'STATE_VALUE_TOO_LARGE',
      `the value for ${quoteInput(key)} is ${formatBytesRoughly(bytes)} of JSON, past the ` +
        `${formatBytes(limits.stateValueMaxBytes)} one value may be (${spec.name}, --${spec.flag}); nothing was written; ` +
        `store it in parts under several keys, or keep less of it`,
    );
  }
  return bytes;
}

/** A principal's live entries: how many, and what they weigh together (entryBytes). */
export interface StateUsage {
  readonly keys: number;
  readonly bytes: number;
}

/**
 * Whether storing an entry of `bytes` under `key` fits, given the principal's usage and what the
 * key holds now (`replaced`: its entry's bytes, undefined when the key is new). Throws when not.
 */
export function checkRoom(
  key: string,
  bytes: number,
  replaced: number | undefined,
  usage: StateUsage,
  limits: StateLimits,
): void {
  const isNew = replaced === undefined;
  if (isNew && usage.keys + 1 > limits.stateMaxKeys) {
    const spec = SETTINGS.stateMaxKeys;
    throw new StateError(
      'STATE_TOO_MANY_KEYS',
      `storing the new key ${quoteInput(key)} would make ${groupThousands(usage.keys + 1)} keys, past the ` +
        `${groupThousands(limits.stateMaxKeys)} kept per principal (${spec.name}, --${spec.flag}); nothing was written; ` +
        `remove keys no longer needed (state.remove), give entries a time to live, or keep more under one key`,
    );
  }
  const total = usage.bytes - (replaced ?? 0) + bytes;
  if (total > limits.stateMaxBytes) {
    const spec = SETTINGS.stateMaxBytes;
    throw new StateError(
      'STATE_FULL',
      `storing ${quoteInput(key)} would bring this principal's keys and values to ${formatBytesRoughly(total)}, ` +
        `past the ${formatBytes(limits.stateMaxBytes)} kept per principal (${spec.name}, --${spec.flag}); nothing was written; ` +
        `remove keys no longer needed (state.remove), or give entries a time to live`,
    );
  }
}
