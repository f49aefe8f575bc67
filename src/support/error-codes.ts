/**
 * Every string code the server gives its errors, declared once: what it means, who reads it, and
 * when (if ever) making the same call again can pass. CodemodeError writes `CODE: message` and adds
 * the retry hint from here; the docs' codes table is made from here (npm run docs:errors).
 * Users and scripts match these names: a code is never renamed.
 */

/** Who reads an error with the code, and as what: the docs' table groups its rows by this. */
export const CODE_GROUPS = {
  call: "A script's call refused before anything was sent: the script gets `ToolRefused`",
  fetch: "A script's `fetch()` refused: the script gets `ToolRefused`, the code also as its `code`",
  state: "A script's `store`/`load`/`state.*` refused or failed: the script gets `ToolRefused`",
  skills: "A script's `skills.*` refused or failed: the script gets `ToolRefused`",
  sent: 'A call that was sent and came to grief: the script gets a result with `isError` (`ResultTooLarge`, or for `fetch()` a `TypeError`)',
  start: 'The server or a command could not do what it was given: the message is on stderr (and in the log)',
} as const;

export type CodeGroup = keyof typeof CODE_GROUPS;

export interface ErrorCodeSpec {
  readonly group: CodeGroup;
  /** What the code means, as the docs' table says it. */
  readonly means: string;
  /**
   * When the same call, made again, can pass with nothing lost: `later`, `once a person has signed
   * in to the upstream`. Its message then ends `it is safe to retry <when>`. Null when a retry is
   * refused the same way (a person's denial, a denied tool), or when the first may have taken
   * effect (the message says so): the model is never told to retry what will not pass.
   */
  readonly retry: string | null;
}

export const ERROR_CODES = {
  TOOL_UNKNOWN: { group: 'call', means: 'no upstream tool has this name', retry: null },
  TOOL_DENIED: { group: 'call', means: "the config's policy does not allow the tool", retry: null },
  UPSTREAM_CONNECTING: {
    group: 'call',
    means: 'its upstream is starting for the first time, or restarting after it died',
    retry: 'later',
  },
  UPSTREAM_DOWN: {
    group: 'call',
    means: 'its last start attempt failed (the message has the reason and when the next attempt is), or it is closed',
    retry: 'later',
  },
  UPSTREAM_UNAUTHORIZED: {
    group: 'call',
    means: 'the upstream refused the call unread (HTTP 401 or 403): it needs a sign-in, or more scope',
    retry: 'once a person has signed in to the upstream',
  },
  RESOURCE_UNKNOWN: {
    group: 'call',
    means: 'a read of a URI that no upstream lists and no template matches',
    retry: null,
  },
  RESOURCE_DENIED: {
    group: 'call',
    means: "a read of a URI the entry's `resources` policy does not allow",
    retry: null,
  },
  STATE_OFF: { group: 'call', means: '`store`/`load` where this server keeps no state', retry: null },
  SKILLS_OFF: { group: 'call', means: '`skills.*` where this server serves no skills', retry: null },
  APPROVAL_DENIED: {
    group: 'call',
    means: "a call that needs a person's approval, denied by the person (or the question dismissed)",
    retry: null,
  },
  APPROVAL_TIMED_OUT: {
    group: 'call',
    means: "a call that needs a person's approval, unanswered within `approvalTimeoutMs`",
    retry: 'when a person is there to answer',
  },
  APPROVAL_UNAVAILABLE: {
    group: 'call',
    means:
      'a call that needs approval where no person can be asked, and `approvalFallback` is `refuse` (or the script ended first)',
    retry: null,
  },

  FETCH_ORIGIN: {
    group: 'fetch',
    means: 'an origin `settings.fetch` does not list (with none listed, every fetch)',
    retry: null,
  },
  FETCH_PATH: { group: 'fetch', means: "a path the origin's `paths` do not match", retry: null },
  FETCH_METHOD: { group: 'fetch', means: "a method the origin's `methods` do not list", retry: null },
  FETCH_HEADER: { group: 'fetch', means: 'a header the server writes itself (`Host`, `Content-Length`, …)', retry: null },
  FETCH_CREDENTIAL: {
    group: 'fetch',
    means:
      "`Authorization`, a header the origin's entry sets, or a user name or password in the URL: credentials are the server's to add",
    retry: null,
  },
  FETCH_PRIVATE: {
    group: 'fetch',
    means: 'a loopback, private, link-local or cloud metadata address, without `allowPrivate`',
    retry: null,
  },
  FETCH_REDIRECT: { group: 'fetch', means: 'a redirect to an origin not listed', retry: null },
  FETCH_TOO_LARGE: { group: 'fetch', means: 'a response body past `fetchMaxBytes` (the request was sent)', retry: null },

  STATE_KEY_INVALID: {
    group: 'state',
    means: 'a key that is empty, longer than a key may be, or holds a lone surrogate',
    retry: null,
  },
  STATE_TTL_INVALID: { group: 'state', means: '`ttlMs` that is not a whole number of milliseconds from 1', retry: null },
  STATE_VALUE_TOO_LARGE: {
    group: 'state',
    means: 'a value whose JSON is past `stateValueMaxBytes`; nothing was written',
    retry: null,
  },
  STATE_FULL: {
    group: 'state',
    means: "a store that would bring the principal's keys and values past `stateMaxBytes`; nothing was written",
    retry: null,
  },
  STATE_TOO_MANY_KEYS: { group: 'state', means: 'a new key past `stateMaxKeys`; nothing was written', retry: null },
  STATE_UNAVAILABLE: {
    group: 'state',
    means: 'the store could not be reached or read (Redis down, a directory unreadable); nothing was read or written',
    retry: 'once the store can be reached again',
  },
  STATE_FAILED: {
    group: 'state',
    means: 'the store failed mid-operation: a store may or may not have been kept (load it to see)',
    retry: null,
  },

  SKILL_NAME_INVALID: {
    group: 'skills',
    means: "a name that isn't 1 to 64 lowercase letters, digits and single hyphens, or is one of `skills`' own",
    retry: null,
  },
  SKILL_EXISTS: { group: 'skills', means: 'a save over a skill of that name without `overwrite: true`', retry: null },
  SKILL_UNKNOWN: { group: 'skills', means: 'no skill of that name', retry: null },
  SKILL_INVALID: { group: 'skills', means: "the skill's files are there but can't be used as they are", retry: null },
  SKILL_SAVE_INVALID: {
    group: 'skills',
    means: "a save's fields: an empty description or code, a schema that isn't an object",
    retry: null,
  },
  SKILL_SAVE_REFUSED: {
    group: 'skills',
    means: 'a save over HTTP where `skillsSaveOverHttp` does not allow it',
    retry: null,
  },
  SKILL_TYPE_CHECK: {
    group: 'skills',
    means: "the skill's code failed the type check against the tools' types: it was not saved, or not run",
    retry: null,
  },
  SKILLS_FAILED: {
    group: 'skills',
    means: 'the skills folder could not be read or written: a save may or may not have been kept (`skills.list()` shows)',
    retry: null,
  },

  UPSTREAM_LOST: {
    group: 'sent',
    means: 'the upstream went away while the call was in flight: it may have taken effect',
    retry: null,
  },
  RESULT_TOO_LARGE: {
    group: 'sent',
    means: "the upstream's answer was past the size limit and skipped unread: the call took effect",
    retry: null,
  },
  UPSTREAM_ANSWER_INVALID: {
    group: 'sent',
    means: "the upstream answered with something that isn't a result: the call may have taken effect",
    retry: null,
  },
  FETCH_FAILED: {
    group: 'sent',
    means:
      'a `fetch()` that failed on the way (no connection, past `fetchTimeoutMs`, too many redirects): it may have reached the server',
    retry: null,
  },

  CONFIG_INVALID: {
    group: 'start',
    means: 'the config file, or a server entry in it, is not one the server can use',
    retry: null,
  },
  SETTING_INVALID: {
    group: 'start',
    means: 'a setting (in the file or a flag) has a value out of its range or type',
    retry: null,
  },
  SETTING_UNKNOWN: { group: 'start', means: 'a name under `settings` that is not a setting', retry: null },
  VARIABLE_INVALID: {
    group: 'start',
    means: "a `${…}` in the config that can't be expanded (unset, malformed, or a VS Code variable)",
    retry: null,
  },
  NAME_COLLISION: { group: 'start', means: 'two servers, or two tools, under one name', retry: null },
  TOKENS_FILE_INVALID: {
    group: 'start',
    means: 'the `--http-tokens` file cannot be used (unreadable, open to others, malformed)',
    retry: null,
  },
  LOG_FILE_INVALID: {
    group: 'start',
    means: 'the log file (`--log-file`, `auditLog`) cannot be opened for appending',
    retry: null,
  },
  LOG_FILE_FAILED: { group: 'start', means: 'a write to the log file failed: the log goes on to stderr alone', retry: null },
  TELEMETRY_INVALID: { group: 'start', means: 'an `OTEL_*` variable the server cannot use', retry: null },
  UPSTREAM_START_FAILED: {
    group: 'start',
    means: 'an upstream could not start (the server tries again, with a growing pause)',
    retry: null,
  },
  SIGN_IN_NEEDED: { group: 'start', means: 'an upstream needs a person to sign in (`codemode-mcp login <server>`)', retry: null },
  SCOPE_REFUSED: {
    group: 'start',
    means: "an upstream refused a token for scope its sign-in already had: signing in again can't help",
    retry: null,
  },
  LOGIN_FAILED: { group: 'start', means: '`codemode-mcp login` could not sign in', retry: null },
  CHILD_NOT_READY: {
    group: 'start',
    means: "a script's process exited, or broke the protocol, before it was ready",
    retry: null,
  },
} as const satisfies Record<string, ErrorCodeSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes of one group: `CodesOf<'fetch'>` is `'FETCH_ORIGIN' | 'FETCH_PATH' | …`. */
export type CodesOf<G extends CodeGroup> = {
  [C in ErrorCode]: (typeof ERROR_CODES)[C]['group'] extends G ? C : never;
}[ErrorCode];

/**
 * `CODE: detail`, with the registry's retry hint where a retry can pass. The hint joins the last
 * sentence: `Nothing was sent.` becomes `Nothing was sent; it is safe to retry later.`
 */
export function formatCodedMessage(code: ErrorCode, detail: string): string {
  const { retry } = ERROR_CODES[code] as ErrorCodeSpec;
  if (retry === null) return `${code}: ${detail}`;
  const hint = `it is safe to retry ${retry}`;
  return detail.endsWith('.') ? `${code}: ${detail.slice(0, -1)}; ${hint}.` : `${code}: ${detail}; ${hint}`;
}
