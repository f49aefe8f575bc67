/**
 * The kinds of setting: each builds a SettingSpec from what is particular to one setting (its
 * name, flag, default, range, words), with the zod schema that reads its value and says, when
 * it can't, what the setting takes.
 */
import { z } from 'zod';
import { closestName } from '../../common/closest-names.js';
import { valueType } from '../support/echo.js';
import { readFetchOrigins, type FetchOriginRule } from './fetch-setting.js';
import type { NumberSettingSpec, SettingSpec } from './setting-spec.js';
import { UNIT_PLACEHOLDERS, WHAT_IT_TAKES, formatSettingValue, readWithSuffix, type SettingUnit } from './setting-units.js';
import type { ApprovalGlobs } from './types.js';
import { resolveUserPath } from './user-path.js';

/** What every kind is given: the setting's own words. `details` is the README's, `doc` when absent. */
interface Words {
  readonly name: string;
  readonly flag: string;
  readonly doc: string;
  readonly details?: string;
}

/** `"64MB"`, `a boolean`: what was found, for "...; got <this>". */
function describeGot(raw: unknown): string {
  return typeof raw === 'string' ? JSON.stringify(raw) : `a ${raw === null ? 'null' : typeof raw}`;
}

const lastOf = (texts: readonly string[]): { raw: unknown } => ({ raw: texts.at(-1) });

/**
 * The schema, made when first asked for: a start pays only for the settings it is given, not for
 * every number schema made up front (bench/ANALYSIS.md, "Figures from the code's comments").
 */
function lazily<S>(make: () => S): () => S {
  let made: S | undefined;
  return () => (made ??= make());
}

/** A whole number of a unit, within a range: `yieldMs`, `memoryMaxBytes`. A string may carry the unit's suffix (`5s`, `64MiB`). */
export function numberSetting(init: Words & { unit: SettingUnit; default: number; min: number; max: number }): NumberSettingSpec {
  const format = (value: number): string => formatSettingValue(init, value);
  const outOfRange = (issue: { input?: unknown }): string =>
    `must be a whole number between ${format(init.min)} and ${format(init.max)}; ` +
    `got ${typeof issue.input === 'number' && Number.isFinite(issue.input) ? format(issue.input) : String(issue.input)}`;
  const schema = lazily(() =>
    z.preprocess(
      (raw, ctx) => {
        if (typeof raw === 'number') return raw;
        const value = typeof raw === 'string' ? readWithSuffix(init.unit, raw) : undefined;
        if (value === undefined)
          ctx.addIssue({ code: 'custom', message: `takes ${WHAT_IT_TAKES[init.unit]}; got ${describeGot(raw)}` });
        return value;
      },
      z
        .number({ error: outOfRange })
        .int({ error: outOfRange })
        .min(init.min, { error: outOfRange })
        .max(init.max, { error: outOfRange }),
    ),
  );
  return {
    kind: 'number',
    placeholder: UNIT_PLACEHOLDERS[init.unit],
    repeatable: false,
    layer: 'settings',
    defaultText: format(init.default),
    defaultMarkdown: format(init.default),
    rangeMarkdown: `${format(init.min)} – ${format(init.max)}`,
    details: init.doc,
    ...init,
    schema,
    flagValue: lastOf,
  };
}

const trueOrFalse = lazily(() => z.boolean({ error: (issue) => `must be true or false (got ${valueType(issue.input)})` }));

/** On or off, off by default: a flag with no value turns it on; the file says true or false. */
export function switchSetting(init: Words): SettingSpec<boolean> {
  return {
    kind: 'switch',
    placeholder: null,
    repeatable: false,
    layer: 'settings',
    default: false,
    defaultText: 'off',
    defaultMarkdown: 'off',
    rangeMarkdown: '`true` or `false` in the file; the flag turns it on',
    details: init.doc,
    ...init,
    schema: trueOrFalse,
    flagValue: () => ({ raw: true }),
  };
}

/** `"a", "b" or "c"`. */
function listChoices(choices: readonly string[], quote: (choice: string) => string): string {
  const quoted = choices.map(quote);
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

/** One of a few words: `approvalFallback`, `logLevel`. A near miss is named (`"debg"`: did you mean "debug"?). */
export function choiceSetting<C extends string>(
  init: Words & {
    choices: readonly C[];
    default: C;
    layer?: 'settings' | 'logging';
    placeholder?: string;
    /** The default when it is not just the word, as --help and (with backticks) the README show it. */
    defaultText?: string;
    defaultMarkdown?: string;
  },
): SettingSpec<C> {
  const allowed: readonly unknown[] = init.choices;
  const schema = lazily(() =>
    z.custom<C>((raw) => allowed.includes(raw), {
      error: (issue) => {
        const guess = typeof issue.input === 'string' ? closestName(issue.input, init.choices) : null;
        const got = typeof issue.input === 'string' ? JSON.stringify(issue.input) : valueType(issue.input);
        return `must be ${listChoices(init.choices, (choice) => JSON.stringify(choice))} (got ${got}${guess === null ? '' : `; did you mean "${guess}"?`})`;
      },
    }),
  );
  return {
    kind: 'choice',
    placeholder: `<${init.choices.join('|')}>`,
    repeatable: false,
    layer: 'settings',
    defaultText: init.default,
    defaultMarkdown: `\`${init.default}\``,
    rangeMarkdown: listChoices(init.choices, (choice) => `\`${choice}\``),
    details: init.doc,
    ...init,
    schema,
    flagValue: lastOf,
  };
}

/** A list of globs (`*`, `?`) over tool names as scripts see them: `expose`, and each list of `approvals`. */
const globList = lazily(() =>
  z.array(
    z
      .string({
        error: (issue) => `must be a non-empty glob over tool names as scripts see them (got ${valueType(issue.input)})`,
      })
      .min(1, { error: 'must be a non-empty glob over tool names as scripts see them (got an empty string)' }),
    {
      error: (issue) => `must be a list of tool-name globs, as in ["search", "github__get_*"] (got ${valueType(issue.input)})`,
    },
  ),
);

/** Globs over tool names, none by default; the flag is given once per glob. */
export function globsSetting(init: Words & { rangeMarkdown: string }): SettingSpec<readonly string[]> {
  return {
    kind: 'globs',
    placeholder: '<glob>',
    repeatable: true,
    layer: 'settings',
    default: [],
    defaultText: 'none',
    defaultMarkdown: 'none',
    details: init.doc,
    ...init,
    schema: globList,
    flagValue: (texts) => ({ raw: texts }),
  };
}

const DECISIONS = ['allow', 'ask', 'deny'] as const;

const approvalGlobs = lazily(() =>
  z
    .strictObject(Object.fromEntries(DECISIONS.map((decision) => [decision, globList().optional()])), {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? 'is not a choice; approvals takes "allow", "ask" and "deny", each a list of globs'
          : `must be an object of glob lists, as in {"ask": ["github__delete_*"]} (got ${valueType(issue.input)})`,
    })
    .transform((globs) => globs as Readonly<ApprovalGlobs>),
);

/** `{"allow"|"ask"|"deny": [globs]}`; as a flag, once per glob: `--approvals ask=github__delete_*`. */
export function approvalsSetting(
  init: Words & { defaultMarkdown: string; rangeMarkdown: string },
): SettingSpec<Readonly<ApprovalGlobs>> {
  return {
    kind: 'approvals',
    placeholder: '<allow|ask|deny>=<glob>',
    repeatable: true,
    layer: 'settings',
    default: {},
    defaultText: 'none',
    details: init.doc,
    ...init,
    schema: approvalGlobs,
    flagValue: (texts) => {
      const globs: Record<string, string[]> = {};
      for (const text of texts) {
        const at = text.indexOf('=');
        const decision = text.slice(0, Math.max(at, 0));
        if (!(DECISIONS as readonly string[]).includes(decision)) {
          return {
            message: `takes allow=<glob>, ask=<glob> or deny=<glob>, as in ask=github__delete_*; got ${JSON.stringify(text)}`,
          };
        }
        (globs[decision] ??= []).push(text.slice(at + 1));
      }
      return { raw: globs };
    },
  };
}

const PATH_MARKDOWN = 'a path (`~` and, in the config file, relative to its directory)';

/** A file or directory, none by default: `~` expanded, a relative one taken from the config file's directory (a flag's from the working directory). */
export function pathSetting(
  init: Words & {
    target: 'file' | 'directory';
    /** What it is for, in a refusal: "takes the path of a directory <what>". */
    what: string;
    placeholder: string;
    defaultText: string;
    layer?: 'settings' | 'logging';
  },
): SettingSpec<string | null> {
  const error = (issue: { input?: unknown }): string =>
    `takes the path of a ${init.target} ${init.what}; got ${describeGot(issue.input)}`;
  const text = lazily(() => z.string({ error }).refine((path) => path.trim() !== '', { error }));
  return {
    kind: 'path',
    repeatable: false,
    layer: 'settings',
    default: null,
    defaultMarkdown: init.defaultText,
    rangeMarkdown: PATH_MARKDOWN,
    details: init.doc,
    ...init,
    schema: (place) => text().transform((path) => resolveUserPath(path, place.baseDir, place.home)),
    flagValue: lastOf,
  };
}

/** What a refused URL was, without quoting it: a URL may carry a password, so only its scheme is named. */
function describeUrl(raw: unknown): string {
  if (typeof raw !== 'string') return describeGot(raw);
  return URL.canParse(raw) ? `a ${new URL(raw).protocol} URL` : 'text that is not a URL';
}

/** The URLs a setting of the `url` kind takes: its schemes, an example, and whether only an origin (no path) will do. */
interface UrlShape {
  readonly schemes: readonly string[];
  readonly example: string;
  readonly originOnly?: boolean;
}

/** The URL schemes a Redis or Valkey server is reached at (rediss: over TLS). */
const REDIS_URL: UrlShape = { schemes: ['redis:', 'rediss:'], example: 'redis://localhost:6379' };

/** A web origin: scheme, host and port, no path. */
const WEB_ORIGIN: UrlShape = { schemes: ['http:', 'https:'], example: 'https://mcp.example.com', originOnly: true };

/** A URL of one of `shape`'s schemes, none by default. */
function urlSetting(shape: UrlShape, init: Words & { placeholder: string; defaultText: string }): SettingSpec<string | null> {
  const schemes = shape.schemes.map((scheme) => `${scheme}//`);
  const what = `${listChoices(schemes, (scheme) => scheme)} ${shape.originOnly === true ? 'origin (no path)' : 'URL'}`;
  const error = (issue: { input?: unknown }): string =>
    `takes a ${what}, as in ${shape.example}; got ${describeUrl(issue.input)}`;
  const fits = (text: string): boolean => {
    if (!URL.canParse(text)) return false;
    const url = new URL(text);
    return shape.schemes.includes(url.protocol) && (shape.originOnly !== true || `${url.origin}/` === url.href);
  };
  const schema = lazily(() =>
    z
      .string({ error })
      .refine(fits, { error })
      .transform((text) => (shape.originOnly === true ? new URL(text).origin : text)),
  );
  return {
    kind: 'url',
    repeatable: false,
    layer: 'settings',
    default: null,
    defaultMarkdown: init.defaultText,
    rangeMarkdown: `a ${listChoices(schemes, (scheme) => `\`${scheme}\``)} ${shape.originOnly === true ? 'origin' : 'URL'}`,
    details: init.doc,
    ...init,
    schema,
    flagValue: lastOf,
  };
}

/** A redis:// or rediss:// URL, none by default. */
export function redisUrlSetting(init: Words & { placeholder: string; defaultText: string }): SettingSpec<string | null> {
  return urlSetting(REDIS_URL, init);
}

/** An http:// or https:// origin, none by default. */
export function webOriginSetting(init: Words & { placeholder: string; defaultText: string }): SettingSpec<string | null> {
  return urlSetting(WEB_ORIGIN, init);
}

/**
 * The origins scripts may fetch (fetch-setting.ts), none by default: the file's object, its header
 * values expanded from the environment. As a flag, the same object as JSON; given again, each adds
 * its origins, and an origin in two of them is refused.
 */
export function fetchOriginsSetting(
  init: Words & { defaultMarkdown: string; rangeMarkdown: string },
): SettingSpec<readonly FetchOriginRule[]> {
  return {
    kind: 'fetch',
    placeholder: '<json>',
    repeatable: true,
    flagIsJson: true,
    layer: 'settings',
    default: [],
    defaultText: 'none',
    details: init.doc,
    ...init,
    schema: (place) =>
      z.unknown().transform((raw, ctx) => {
        const read = readFetchOrigins(raw, place.env);
        if ('rules' in read) return read.rules;
        ctx.addIssue({ code: 'custom', path: [...read.issue.path], message: read.issue.message, input: raw });
        return z.NEVER;
      }),
    flagValue: (texts) => {
      const origins: Record<string, unknown> = {};
      for (const text of texts) {
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          // Not quoted back: the text may carry a credential.
          return { message: 'takes a JSON object of origins, as in {"https://api.github.com": {}}; got text that is not JSON' };
        }
        if (value === null || typeof value !== 'object' || Array.isArray(value)) return { raw: value };
        for (const [origin, entry] of Object.entries(value)) {
          if (Object.hasOwn(origins, origin)) return { message: `names ${JSON.stringify(origin)} twice; list each origin once` };
          origins[origin] = entry;
        }
      }
      return { raw: origins };
    },
  };
}
