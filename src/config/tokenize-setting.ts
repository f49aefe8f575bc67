/**
 * `settings.tokenize` (issue 48): personal data in what goes to the client replaced by typed tokens
 * (`[EMAIL_1]`), put back in what comes from it. Off by default; `true` turns on the default
 * detectors; the object form names the detectors, fields, patterns, phone region, the upstreams
 * that may receive real values, and the vault's time to live and bound. One setting spec, read and
 * checked here; src/tokenize/ does the work (docs/tokenize.md).
 */
import { createRequire } from 'node:module';
import { z } from 'zod';
import type * as PhoneNumbers from 'libphonenumber-js/core';
import { closestName } from '../../common/closest-names.js';
import { describeType, valueType } from '../support/echo.js';
import type { SettingSpec } from './setting-spec.js';

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

const FIELDS = ['detectors', 'fields', 'patterns', 'phoneRegion', 'restore', 'ttlMs', 'maxValues'] as const;
const OBJECT_EXAMPLE = '{"fields": ["name"], "phoneRegion": "US"}';

/** A list of non-empty strings; `what` names one (`a field name`). */
const nonEmptyStrings = (what: string) =>
  z.array(
    z
      .string({ error: (issue) => `must be ${what} (got ${describeType(issue.input)})` })
      .min(1, { error: `must be ${what}, not an empty string` }),
    { error: (issue) => `must be a list of strings, each ${what} (got ${describeType(issue.input)})` },
  );

const wholeNumber = (min: number, max: number, words: string) =>
  z
    .number({ error: (issue) => `must be a whole number ${words} (got ${describeType(issue.input)})` })
    .int({ error: `must be a whole number ${words}` })
    .min(min, { error: `must be a whole number ${words}` })
    .max(max, { error: `must be a whole number ${words}` });

function didYouMean(key: string): string {
  const guess = closestName(key, FIELDS);
  return guess === null ? '' : ` (did you mean "${guess}"?)`;
}

let objectSchema: z.ZodType<Partial<Record<(typeof FIELDS)[number], unknown>>> | undefined;

/** The object form, its patterns and region checked past their shape. */
function tokenizeObject() {
  return (objectSchema ??= z
    .strictObject(
      {
        detectors: z
          .array(
            z.enum(TOKEN_DETECTORS, {
              error: (issue) =>
                `must be one of ${TOKEN_DETECTORS.map((name) => `"${name}"`).join(', ')} (got ${typeof issue.input === 'string' ? JSON.stringify(issue.input) : valueType(issue.input)})`,
            }),
            { error: (issue) => `must be a list of detectors, as in ["email", "phone"] (got ${describeType(issue.input)})` },
          )
          .optional(),
        fields: nonEmptyStrings('a JSON field name').optional(),
        patterns: nonEmptyStrings('a regular expression').optional(),
        phoneRegion: z
          .string({ error: (issue) => `must be a region code such as "US" (got ${describeType(issue.input)})` })
          .regex(/^[A-Z]{2}$/, {
            error: 'must be a region code of two capital letters (ISO 3166-1 alpha-2), as in "US", "GB", "DE"',
          })
          .optional(),
        restore: nonEmptyStrings('a glob over upstream names').optional(),
        ttlMs: wholeNumber(
          TOKEN_TTL_MIN_MS,
          TOKEN_TTL_MAX_MS,
          `of milliseconds from ${TOKEN_TTL_MIN_MS} (1 s) to ${TOKEN_TTL_MAX_MS} (30 days)`,
        ).optional(),
        maxValues: wholeNumber(1, TOKEN_VAULT_MAX_VALUES_LIMIT, `from 1 to ${TOKEN_VAULT_MAX_VALUES_LIMIT}`).optional(),
      },
      {
        error: (issue) =>
          issue.code === 'unrecognized_keys'
            ? `is not a field of tokenize${didYouMean(issue.keys[0] ?? '')}; it takes ${FIELDS.join(', ')}`
            : `must be true, false or an object such as ${OBJECT_EXAMPLE} (got ${describeType(issue.input)})`,
      },
    )
    .superRefine((read, ctx) => {
      read.patterns?.forEach((pattern, i) => {
        const problem = patternProblem(pattern);
        if (problem !== null)
          ctx.addIssue({ code: 'custom', path: ['patterns', i], message: `(${JSON.stringify(pattern)}) ${problem}` });
      });
      if (read.phoneRegion !== undefined && !isPhoneRegion(read.phoneRegion)) {
        ctx.addIssue({
          code: 'custom',
          path: ['phoneRegion'],
          message: `"${read.phoneRegion}" is not a region with a phone numbering plan; write an ISO 3166-1 alpha-2 code such as "US", "GB", "DE"`,
        });
      }
    }));
}

/** `false` is off (null), `true` the defaults, an object its fields over the defaults. */
const tokenizeSchema = () =>
  z.unknown().transform((raw, ctx): TokenizeSettings | null => {
    if (raw === false) return null;
    if (raw === true) return DEFAULT_TOKENIZE;
    const parsed = tokenizeObject().safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        // An unknown field is the place the message follows, as read-settings.ts does for a setting's own.
        const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
        ctx.addIssue({ code: 'custom', path, message: issue.message });
      }
      return z.NEVER;
    }
    const read = parsed.data as Partial<TokenizeSettings>;
    return { ...DEFAULT_TOKENIZE, ...read };
  });

/**
 * `settings.tokenize`, its own kind: off by default; in the file `true` or the object form; the
 * flag alone is `true`, or takes `true`, `false` or the object as JSON (`--tokenize
 * '{"fields":["name"]}'`).
 */
export const TOKENIZE_SETTING: SettingSpec<TokenizeSettings | null> = {
  kind: 'tokenize',
  name: 'tokenize',
  flag: 'tokenize',
  placeholder: '[json]',
  repeatable: false,
  layer: 'settings',
  default: null,
  defaultText: 'off',
  defaultMarkdown: 'off',
  rangeMarkdown:
    '`true`, or an object of `detectors`, `fields`, `patterns`, `phoneRegion`, `restore`, `ttlMs`, `maxValues`; the flag alone is `true`, or takes the object as JSON',
  doc: 'replace emails, phone numbers, card numbers, IBANs, IP addresses (and configured fields and patterns) in what reaches the client with tokens such as [EMAIL_1], and put the values back in what the client sends; alone the defaults, or a JSON object',
  details:
    'what reaches the client carries tokens such as `[EMAIL_1]` in place of personal data, and the tokens a script passes to a tool are put back ([docs/tokenize.md](docs/tokenize.md), [docs/config.md](docs/config.md#tokenize))',
  schema: tokenizeSchema,
  flagValue: (texts) => {
    const text = texts.at(-1);
    if (text === undefined) return { raw: true };
    try {
      return { raw: JSON.parse(text) as unknown };
    } catch {
      return {
        message: `takes nothing (the defaults), true, false or a JSON object such as '${OBJECT_EXAMPLE}'; got ${JSON.stringify(text)} (an upstream's command goes after --)`,
      };
    }
  },
};

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
