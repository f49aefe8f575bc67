/**
 * `settings.tokenize` (issue 48): personal data in what goes to the client replaced by typed tokens
 * (`[EMAIL_1]`), put back in what comes from it. Off by default; `true` turns on the default
 * detectors; the object form names the detectors, fields, patterns, phone region, the upstreams
 * that may receive real values, and the vault's time to live and bound. Read and checked here;
 * src/tokenize/ does the work (docs/tokenize.md).
 */
import { createRequire } from 'node:module';
import { z } from 'zod';
import type * as PhoneNumbers from 'libphonenumber-js/core';
import { ConfigError, describeValueType, formatConfigPath } from './config-error.js';
import { formatIssue, pickIssue } from './format-issue.js';

/** The built-in detectors, each a kind of token: `email` gives `[EMAIL_n]`, `phone` `[PHONE_n]`, and so on. */
export const TOKEN_DETECTORS = ['email', 'phone', 'card', 'iban', 'ip'] as const;
export type TokenDetector = (typeof TOKEN_DETECTORS)[number];

const SECOND_MS = 1_000;
const DAY_MS = 24 * 60 * 60 * SECOND_MS;

/**
 * 24 h: a value's token is kept this long after its last use (a tokenize that met the value, or a
 * restore of the token); past it the token is forgotten: a restore leaves it literal and says so,
 * and the value, met again, gets a new number. `settings.tokenize.ttlMs`, 1 s to 30 days.
 */
export const TOKEN_TTL_MS = DAY_MS;
const TOKEN_TTL_MIN_MS = SECOND_MS;
const TOKEN_TTL_MAX_MS = 30 * DAY_MS;

/**
 * 100,000 per scope (a session, or a principal over HTTP): values with a token. Past it the least
 * recently used value's token is forgotten, as at its time to live; tokenizing never stops.
 * `settings.tokenize.maxValues`, 1 to 10,000,000.
 */
export const TOKEN_VAULT_MAX_VALUES = 100_000;
const TOKEN_VAULT_MAX_VALUES_LIMIT = 10_000_000;

/** `settings.tokenize`, read: what src/tokenize/ is built from. */
export interface TokenizeSettings {
  readonly detectors: readonly TokenDetector[];
  /** JSON field names (case-insensitive) whose values are tokenized whole: `name` gives `[NAME_n]`. */
  readonly fields: readonly string[];
  /** Regular expressions (JavaScript's syntax, no flags) whose matches become `[SECRET_n]`. */
  readonly patterns: readonly string[];
  /** ISO 3166-1 alpha-2 region for national phone formats; null: only numbers written with + and a country code. */
  readonly phoneRegion: string | null;
  /** Globs over upstream names: the upstreams that receive real values; the others get tokens. */
  readonly restore: readonly string[];
  readonly ttlMs: number;
  readonly maxValues: number;
}

export const TOKENIZE_SETTING = {
  name: 'tokenize',
  doc: 'replace emails, phone numbers, card numbers, IBANs, IP addresses (and configured fields and patterns) in what reaches the client with tokens such as [EMAIL_1], and put the values back in what the client sends',
} as const;

/** `true`: every detector, no fields or patterns, international phone numbers only, every upstream restored. */
export const DEFAULT_TOKENIZE: TokenizeSettings = {
  detectors: TOKEN_DETECTORS,
  fields: [],
  patterns: [],
  phoneRegion: null,
  restore: ['*'],
  ttlMs: TOKEN_TTL_MS,
  maxValues: TOKEN_VAULT_MAX_VALUES,
};

const schema = z.strictObject({
  detectors: z.array(z.enum(TOKEN_DETECTORS)).optional(),
  fields: z.array(z.string().min(1, 'must not be an empty field name')).optional(),
  patterns: z.array(z.string().min(1, 'must not be an empty pattern')).optional(),
  phoneRegion: z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be a region code of two capital letters (ISO 3166-1 alpha-2), as in "US", "GB", "DE"')
    .optional(),
  restore: z.array(z.string().min(1, 'must not be an empty glob')).optional(),
  ttlMs: z
    .number()
    .refine(
      Number.isInteger,
      `must be a whole number of milliseconds from ${TOKEN_TTL_MIN_MS} (1 s) to ${TOKEN_TTL_MAX_MS} (30 days)`,
    )
    .min(TOKEN_TTL_MIN_MS, `must be at least ${TOKEN_TTL_MIN_MS} (1 s)`)
    .max(TOKEN_TTL_MAX_MS, `must be at most ${TOKEN_TTL_MAX_MS} (30 days)`)
    .optional(),
  maxValues: z
    .number()
    .refine(Number.isInteger, `must be a whole number from 1 to ${TOKEN_VAULT_MAX_VALUES_LIMIT}`)
    .min(1, 'must be at least 1')
    .max(TOKEN_VAULT_MAX_VALUES_LIMIT, `must be at most ${TOKEN_VAULT_MAX_VALUES_LIMIT}`)
    .optional(),
});

/**
 * `settings.tokenize` as the config file has it: false (or absent) is off (null), true the
 * defaults, an object its fields over the defaults. Throws ConfigError naming the field and what to write.
 */
export function readTokenizeSetting(value: unknown, file: string | null): TokenizeSettings | null {
  const at = ['settings', TOKENIZE_SETTING.name];
  const invalid = (detail: string) => new ConfigError(file, detail);
  if (value === false) return null;
  if (value === true) return DEFAULT_TOKENIZE;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(
      `${formatConfigPath(at)} must be true, false or an object such as {"fields": ["name"], "phoneRegion": "US"} (got ${describeValueType(value)})`,
    );
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = pickIssue(parsed.error.issues);
    throw invalid(
      issue === undefined ? `${formatConfigPath(at)} is invalid` : formatIssue(issue, at, value, Object.keys(schema.shape)),
    );
  }
  const read = parsed.data;
  read.patterns?.forEach((pattern, i) => {
    const problem = patternProblem(pattern);
    if (problem !== null) throw invalid(`${formatConfigPath([...at, 'patterns', i])} (${JSON.stringify(pattern)}) ${problem}`);
  });
  if (read.phoneRegion !== undefined && !isPhoneRegion(read.phoneRegion)) {
    throw invalid(
      `${formatConfigPath([...at, 'phoneRegion'])} "${read.phoneRegion}" is not a region with a phone numbering plan; write an ISO 3166-1 alpha-2 code such as "US", "GB", "DE"`,
    );
  }
  return {
    detectors: read.detectors ?? DEFAULT_TOKENIZE.detectors,
    fields: read.fields ?? DEFAULT_TOKENIZE.fields,
    patterns: read.patterns ?? DEFAULT_TOKENIZE.patterns,
    phoneRegion: read.phoneRegion ?? DEFAULT_TOKENIZE.phoneRegion,
    restore: read.restore ?? DEFAULT_TOKENIZE.restore,
    ttlMs: read.ttlMs ?? DEFAULT_TOKENIZE.ttlMs,
    maxValues: read.maxValues ?? DEFAULT_TOKENIZE.maxValues,
  };
}

/** Why a pattern can't serve (not a JavaScript regular expression, or it matches nothing at all), or null. */
function patternProblem(pattern: string): string | null {
  let compiled: RegExp;
  try {
    compiled = new RegExp(pattern, 'g');
  } catch (error) {
    const reason = (error as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
    return `is not a regular expression JavaScript reads: ${reason}; in JSON a backslash is written twice ("\\\\d+")`;
  }
  if (new RegExp(`^(?:${compiled.source})$`).test('')) {
    return 'matches the empty string; a pattern must match at least one character (use + rather than *)';
  }
  return null;
}

/** Whether libphonenumber-js has a numbering plan for the region; loaded only when a region is set. */
function isPhoneRegion(region: string): boolean {
  const require = createRequire(import.meta.url);
  const { isSupportedCountry } = require('libphonenumber-js/core') as typeof PhoneNumbers;
  return isSupportedCountry(
    region as PhoneNumbers.CountryCode,
    require('libphonenumber-js/max/metadata') as PhoneNumbers.MetadataJson,
  );
}
