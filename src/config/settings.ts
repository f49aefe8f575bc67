/**
 * The server's settings: each one defined here once, with its default, its range and what
 * happens past it. The CLI makes a flag of each, the config file a field of each, and the
 * README's settings table says the same.
 */

import { formatBytes } from '../../common/format-numbers.js';
import { SHOW_MAX_BYTES_LIMIT } from '../../protocol/contract.js';
import { LOG_LEVELS, type LogSettings } from '../support/log.js';
import type { ApprovalGlobs } from './types.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

export type SettingUnit = 'ms' | 'bytes' | 'count';

export interface SettingSpec {
  /** Field name in the config file's `settings` object. */
  readonly name: string;
  /** CLI flag, without the leading dashes. */
  readonly flag: string;
  readonly unit: SettingUnit;
  readonly default: number;
  readonly min: number;
  readonly max: number;
  /** What the setting does and what happens past it, for --help and the README. */
  readonly doc: string;
}

function setting(spec: SettingSpec): SettingSpec {
  return spec;
}

export const SETTINGS = {
  /** 30 s: a run or wait returns by then with the output so far; the script keeps running. */
  yieldMs: setting({
    name: 'yieldMs',
    flag: 'yield-ms',
    unit: 'ms',
    default: 30 * SECOND,
    min: 0,
    max: 3_600 * SECOND,
    doc: 'a run or wait returns by then with the output so far; the script keeps running',
  }),
  /** 600 s: the cap on a call's `yield_ms`; a larger `yield_ms` is refused. */
  maxYieldMs: setting({
    name: 'maxYieldMs',
    flag: 'max-yield-ms',
    unit: 'ms',
    default: 600 * SECOND,
    min: 0,
    max: 3_600 * SECOND,
    doc: "cap on a call's yield_ms; a larger yield_ms is refused with the cap in the message",
  }),
  /** 15 min: then the script is stopped, and its ending is an error. */
  scriptLifetimeMs: setting({
    name: 'scriptLifetimeMs',
    flag: 'script-lifetime-ms',
    unit: 'ms',
    default: 15 * MINUTE,
    min: 1 * SECOND,
    max: 24 * 60 * MINUTE,
    doc: 'then the script is stopped and its ending is an error',
  }),
  /** 16 per session, as many as maxScriptChildren: a further run is refused, naming the running scripts. */
  maxRunningScripts: setting({
    name: 'maxRunningScripts',
    flag: 'max-running-scripts',
    unit: 'count',
    default: 16,
    min: 1,
    max: 64,
    doc: 'per MCP session; a further run is refused, naming the running scripts',
  }),
  /** 16 per server: script children across all sessions, pooled ones included. */
  maxScriptChildren: setting({
    name: 'maxScriptChildren',
    flag: 'max-script-children',
    unit: 'count',
    default: 16,
    min: 1,
    max: 256,
    doc: 'child processes across all sessions, pooled ones included; a further run is refused',
  }),
  /** 128 MiB: the QuickJS memory limit of one script; past it the script fails as out of memory. */
  memoryMaxBytes: setting({
    name: 'memoryMaxBytes',
    flag: 'memory-max-bytes',
    unit: 'bytes',
    default: 128 * MiB,
    min: 4 * MiB,
    max: 2 * GiB,
    doc: 'QuickJS memory limit per script; past it the script fails as out of memory',
  }),
  /** 60 s: a tool call past it rejects with TimeoutError; its place is held until the tool answers. */
  toolCallTimeoutMs: setting({
    name: 'toolCallTimeoutMs',
    flag: 'tool-call-timeout-ms',
    unit: 'ms',
    default: 60 * SECOND,
    min: 1,
    max: 3_600 * SECOND,
    doc: 'a call past it rejects with TimeoutError in the script; its place is held until the tool answers',
  }),
  /**
   * 10 min: how long a call that needs approval waits for a person's answer; unanswered by then, it
   * is refused (ToolRefused, nothing sent). The wait does not count toward toolCallTimeoutMs.
   */
  approvalTimeoutMs: setting({
    name: 'approvalTimeoutMs',
    flag: 'approval-timeout-ms',
    unit: 'ms',
    default: 10 * MINUTE,
    min: 1 * SECOND,
    max: 24 * 60 * MINUTE,
    doc: "how long a call that needs approval waits for a person's answer; then it is refused and nothing is sent",
  }),
  /** 8 per session: ended scripts kept for a later wait or list; the oldest is forgotten first. */
  endedScriptsKept: setting({
    name: 'endedScriptsKept',
    flag: 'ended-scripts-kept',
    unit: 'count',
    default: 8,
    min: 0,
    max: 256,
    doc: 'per session, for a later wait or list; the oldest ended script is forgotten first',
  }),
  /** 20 per script: notify() calls allowed; past it notify throws. 0 turns notify off. */
  notifyMax: setting({
    name: 'notifyMax',
    flag: 'notify-max',
    unit: 'count',
    default: 20,
    min: 0,
    max: 1_000,
    doc: 'notify() calls per script; past it notify throws; 0 turns notify off',
  }),
  /**
   * 4 MiB per answer: content blocks a script shows (show(), or the image, audio and resource
   * blocks of a tool result it returns) go into the answer up to this many bytes of JSON; blocks
   * past it are left out, and the answer says how many. One show() larger than this throws in the
   * script. 0 turns show() off.
   */
  showMaxBytes: setting({
    name: 'showMaxBytes',
    flag: 'show-max-bytes',
    unit: 'bytes',
    default: 4 * MiB,
    min: 0,
    max: SHOW_MAX_BYTES_LIMIT,
    doc: "bytes of content blocks (images, audio, resources) a script's answer carries; blocks past it are left out and counted; 0 turns show() off",
  }),
  /** 2: children started ahead of scripts, grown by bursts up to maxScriptChildren; 0 turns the pool off. */
  pool: setting({
    name: 'pool',
    flag: 'pool',
    unit: 'count',
    default: 2,
    min: 0,
    max: 16,
    doc: 'script children started ahead so a run starts at once; a burst grows it up to maxScriptChildren; 0 turns the pool off',
  }),
  /**
   * 1000: scripts one child runs, one after another, each in a fresh engine (src/scripts/child-pool.ts);
   * then it exits and a new one takes its place. 1: every script gets a new process. A new child
   * costs 0.6-0.7 s of CPU on this project's 2-core machines: at 100 that was 6-7 ms a script, more
   * than the script and its reset (bench/ANALYSIS.md, "Beside a peer"). childMaxAgeMs bounds a
   * child's life whatever the count.
   */
  childMaxScripts: setting({
    name: 'childMaxScripts',
    flag: 'child-max-scripts',
    unit: 'count',
    default: 1000,
    min: 1,
    max: 10_000,
    doc: 'scripts one child process runs, one after another, each in a fresh engine and only for the same session or principal; then it exits; 1: a new process for every script',
  }),
  /** 5 min: past this age a child takes no further script; it exits when its script ends. */
  childMaxAgeMs: setting({
    name: 'childMaxAgeMs',
    flag: 'child-max-age-ms',
    unit: 'ms',
    default: 5 * MINUTE,
    min: 1 * SECOND,
    max: 24 * 60 * MINUTE,
    doc: 'age past which a child process takes no further script; it exits when its script ends',
  }),
  /**
   * 16 MiB: the longest message a client may send (one JSON line on stdin). A longer request gets
   * JSON-RPC error -32600 naming this setting; one with no readable id is dropped with a log line.
   * Either way the server reads on and every running script goes on.
   */
  maxMessageBytes: setting({
    name: 'maxMessageBytes',
    flag: 'max-message-bytes',
    unit: 'bytes',
    default: 16 * MiB,
    min: 1 * MiB,
    max: 256 * MiB,
    doc: 'longest message a client may send; a longer request gets a JSON-RPC error naming this setting, and the server reads on',
  }),
  /** 15 s: how long tools/list and tools/call wait for the upstreams' first start; then they answer with the tools known so far. */
  startupWaitMs: setting({
    name: 'startupWaitMs',
    flag: 'startup-wait-ms',
    unit: 'ms',
    default: 15 * SECOND,
    min: 0,
    max: 10 * MINUTE,
    doc: "tools/list and tools/call wait this long for the upstreams' first start; then they answer with the tools known so far, the log and the description name the upstreams still starting",
  }),
  /** 60 s: an upstream that hasn't answered initialize, or a page of tools/list, within it has failed to start. */
  upstreamStartTimeoutMs: setting({
    name: 'upstreamStartTimeoutMs',
    flag: 'upstream-start-timeout-ms',
    unit: 'ms',
    default: 60 * SECOND,
    min: 1 * SECOND,
    max: 60 * MINUTE,
    doc: 'an upstream that has not answered initialize, or a page of tools/list, by then has failed to start; it is retried with backoff',
  }),
  /** 30 s: a remote upstream idle this long is pinged, and pinged before its next call; 0 turns pings off. */
  upstreamPingIntervalMs: setting({
    name: 'upstreamPingIntervalMs',
    flag: 'upstream-ping-interval-ms',
    unit: 'ms',
    default: 30 * SECOND,
    min: 0,
    max: 60 * MINUTE,
    doc: 'a remote (http/sse) upstream idle this long is pinged, and pinged before its next call; 0 turns pings off',
  }),
  /** 10 s: a remote upstream that doesn't answer a ping within it is marked down and reconnected with backoff. */
  upstreamPingTimeoutMs: setting({
    name: 'upstreamPingTimeoutMs',
    flag: 'upstream-ping-timeout-ms',
    unit: 'ms',
    default: 10 * SECOND,
    min: 1,
    max: 10 * MINUTE,
    doc: 'a remote upstream that does not answer a ping by then is marked down, with the reason, and reconnected with backoff',
  }),
  /**
   * 30 min: with --http, a session with no request open for this long ends: its running scripts
   * are stopped (each ending logged) and its resources freed; a later request with its id gets 404.
   */
  httpSessionIdleMs: setting({
    name: 'httpSessionIdleMs',
    flag: 'http-session-idle-ms',
    unit: 'ms',
    default: 30 * MINUTE,
    min: 1 * SECOND,
    max: 24 * 60 * MINUTE,
    doc: 'with --http, a session with no request open this long ends: its running scripts are stopped and its id is forgotten',
  }),
  /**
   * 256: with --http, the most sessions open at once. An `initialize` past it gets 503 and a
   * JSON-RPC error naming this setting and what frees a place (DELETE, the idle end); the sessions
   * open are untouched. Each session holds an MCP server, its scripts' records and its relays, and
   * clients that never send DELETE leave theirs until httpSessionIdleMs.
   */
  maxHttpSessions: setting({
    name: 'maxHttpSessions',
    flag: 'max-http-sessions',
    unit: 'count',
    default: 256,
    min: 1,
    max: 10_000,
    doc: 'with --http, the most sessions open at once; a further initialize is refused with 503 until one ends',
  }),
  /**
   * 30 s: with --http, how long a SIGTERM'd instance drains before it shuts down: it takes no new
   * session or script (a run is refused saying so, /healthz answers 503 "draining"), answers waits
   * on its running scripts, and shuts down once they have all ended or this has passed, stopping
   * those left. 0: SIGTERM shuts down at once, stopping every script. A second SIGTERM ends the drain.
   */
  drainGraceMs: setting({
    name: 'drainGraceMs',
    flag: 'drain-grace-ms',
    unit: 'ms',
    default: 30 * SECOND,
    min: 0,
    max: 60 * MINUTE,
    doc: 'with --http, on SIGTERM: how long running scripts may go on ending while no new one starts, before the shutdown stops those left; 0 shuts down at once',
  }),
  /**
   * 1 MiB: the JSON of one value a script stores (`store(key, value)`), in UTF-8 bytes. A larger
   * value is refused (`STATE_VALUE_TOO_LARGE`, naming this setting) and nothing is written.
   */
  stateValueMaxBytes: setting({
    name: 'stateValueMaxBytes',
    flag: 'state-value-max-bytes',
    unit: 'bytes',
    default: 1 * MiB,
    min: 1 * KiB,
    // A store's key and value travel as one call's arguments, which CALL_ARGS_MAX_BYTES caps at 4 MiB.
    max: 3 * MiB,
    doc: 'JSON of one stored value; a larger store() is refused, naming this setting, and nothing is written',
  }),
  /**
   * 64 MiB per principal: its stored keys and values, as UTF-8 JSON bytes together. A store()
   * that would pass it is refused (`STATE_FULL`, naming this setting) and nothing is written.
   */
  stateMaxBytes: setting({
    name: 'stateMaxBytes',
    flag: 'state-max-bytes',
    unit: 'bytes',
    default: 64 * MiB,
    min: 1 * KiB,
    max: 16 * GiB,
    doc: "a principal's stored keys and values together; a store() past it is refused, naming this setting, and nothing is written",
  }),
  /** 10,000 per principal: a store() of a further key is refused (`STATE_TOO_MANY_KEYS`); a key already kept may still change. */
  stateMaxKeys: setting({
    name: 'stateMaxKeys',
    flag: 'state-max-keys',
    unit: 'count',
    default: 10_000,
    min: 1,
    max: 1_000_000,
    doc: 'keys a principal keeps; a store() of a further key is refused, naming this setting; a key already kept may still change',
  }),
  /**
   * 3 s: how long the type check of one script (or skill) may take; past it the script is refused
   * ("type check took too long"), nothing runs, and the checker's worker is started again.
   */
  typeCheckTimeoutMs: setting({
    name: 'typeCheckTimeoutMs',
    flag: 'type-check-timeout-ms',
    unit: 'ms',
    default: 3 * SECOND,
    min: 100,
    max: 60 * SECOND,
    doc: 'how long the type check of one script may take; past it the script is refused and nothing runs',
  }),
} as const;

/**
 * `expose` (config `settings.expose`, a list; flag `--expose <pattern>`, repeatable): glob patterns
 * (`*`, `?`) over the tool names scripts see. The tools they match are offered beside
 * `code_execution` in `tools/list` and callable directly. Default: none. A denied tool is never
 * exposed (a log line says so); a pattern matching no tool is logged too.
 */
export const EXPOSE_SETTING = {
  name: 'expose',
  flag: 'expose',
  doc: 'offer the tools whose script names match this glob beside code_execution, callable directly; repeatable',
} as const;
/**
 * false: may a script in an HTTP session save a skill (`skills.save`)? A skill is code every
 * session's scripts may then run, and the bearer token names no one, so it is off unless the
 * config file says `"skillsSaveOverHttp": true`. Over stdio and in `run` a script always may.
 */
export const SKILLS_SAVE_SETTING = {
  name: 'skillsSaveOverHttp',
  doc: "let scripts in HTTP sessions save skills (skills.save), which every session's scripts may then run",
} as const;

/**
 * none: `settings.approvals` (config file only), `{"allow"|"ask"|"deny": [globs]}` over the tool
 * names scripts see: which tools' calls wait for a person (src/config/approval-policy.ts). A tool
 * no glob names is decided by its server entry's `approvals`, then by its annotations.
 */
export const APPROVALS_SETTING = {
  name: 'approvals',
  doc: 'allow, ask or deny by glob over the tool names scripts see: an ask call waits for a person to approve it',
} as const;

/** What an `ask` call gets when the client can't ask a person (no elicitation capability). */
export const APPROVAL_FALLBACKS = ['refuse', 'allow'] as const;
export type ApprovalFallback = (typeof APPROVAL_FALLBACKS)[number];

/**
 * refuse: `settings.approvalFallback` (config file only). When the client can't ask a person (it
 * declared no elicitation), an `ask` call is refused; `"allow"` sends it unasked. Either way the
 * script's answer and the log say so.
 */
export const APPROVAL_FALLBACK_SETTING = {
  name: 'approvalFallback',
  choices: APPROVAL_FALLBACKS,
  doc: 'what an ask call gets when the client cannot ask a person (no elicitation): refuse (default) or allow',
} as const;

/** What the type check does with what it finds (src/typecheck/). */
export const TYPE_CHECK_MODES = ['error', 'warn', 'off'] as const;
export type TypeCheckMode = (typeof TYPE_CHECK_MODES)[number];

/**
 * error: `settings.typeCheck` (flag `--type-check <mode>`). Each script is type-checked against
 * the tools' declarations before it runs: `error` refuses one with errors (nothing runs), `warn`
 * runs it and adds what was found to its answer, `off` checks nothing.
 */
export const TYPE_CHECK_SETTING = {
  name: 'typeCheck',
  flag: 'type-check',
  placeholder: '<mode>',
  choices: TYPE_CHECK_MODES,
  defaultText: 'error',
  doc: "check each script against the tools' types before it runs: error refuses one with errors, warn runs it and says what was found, off",
} as const satisfies TextSettingSpec;

/** A setting that is on or off: a flag with no value (`--otel`) and a config field that is true or false. */
export interface SwitchSettingSpec {
  readonly name: string;
  readonly flag: string;
  readonly doc: string;
}

/** Off by default, each: telemetry (src/telemetry/) and what it and the audit log may record. */
export const SWITCH_SETTINGS = {
  /**
   * false: export traces and metrics over OTLP/HTTP. Also on when OTEL_EXPORTER_OTLP_ENDPOINT (or
   * its _TRACES_ or _METRICS_ form) is set; the standard OTEL_* variables say where and how.
   */
  otel: {
    name: 'otel',
    flag: 'otel',
    doc: 'export OpenTelemetry traces and metrics over OTLP/HTTP (also on when OTEL_EXPORTER_OTLP_ENDPOINT is set); the OTEL_* variables say where',
  },
  /** false: a script's span carries its code's size and SHA-256 digest; true adds the code itself. */
  otelScriptCode: {
    name: 'otelScriptCode',
    flag: 'otel-script-code',
    doc: "put each script's code on its span (by default only its size and SHA-256 digest)",
  },
  /** false: an audit log line carries a call's arguments' size and SHA-256 digest; true adds the arguments. */
  auditArguments: {
    name: 'auditArguments',
    flag: 'audit-arguments',
    doc: "put each call's arguments in its audit log line (by default only their size and SHA-256 digest)",
  },
} as const satisfies Record<string, SwitchSettingSpec>;

export type SwitchSettingName = keyof typeof SWITCH_SETTINGS;

/** A setting whose value is a word or a path rather than a number: a flag and a config field all the same. */
export interface TextSettingSpec {
  readonly name: string;
  readonly flag: string;
  /** The flag's value in --help: `<level>`, `<path>`. */
  readonly placeholder: string;
  /** The values it takes, when it is a choice; a path takes any non-empty string. */
  readonly choices?: readonly string[];
  /** As --help and the README show it. */
  readonly defaultText: string;
  readonly doc: string;
}

export const LOG_SETTINGS = {
  /** info: what the server logs to stderr (and the log file); `tools` and `run` default to warn, so only their output shows. */
  logLevel: {
    name: 'logLevel',
    flag: 'log-level',
    placeholder: '<level>',
    choices: LOG_LEVELS,
    defaultText: 'info (warn for tools and run)',
    doc: "error, warn, info or debug: debug adds each upstream's start command and each tool call; error leaves only failures",
  },
  /** none: a file every log line is also appended to, with a timestamp; its directory must exist. */
  logFile: {
    name: 'logFile',
    flag: 'log-file',
    placeholder: '<path>',
    defaultText: 'none',
    doc: 'append every log line, with its time and level, to this file as well as stderr; its directory must exist',
  },
} as const satisfies Record<string, TextSettingSpec>;

export type LogSettingName = keyof typeof LOG_SETTINGS;

/** A setting that says where something lives: a directory (`~` expanded, relative paths resolved) or a Redis URL. */
export interface LocationSettingSpec extends TextSettingSpec {
  readonly kind: 'directory' | 'file' | 'redis-url';
  /** What the directory or file is for, in a refusal: `takes the path of a directory <what>`. */
  readonly what: string;
}

/**
 * Where things live. Scripts' state (`store`/`load`): in memory by default (gone with the server),
 * in a directory, or in Redis/Valkey; `stateDir` and `stateUrl` exclude each other
 * (checkSettingsTogether). Saved skills: a directory, by default the user's data directory's.
 */
export const LOCATION_SETTINGS = {
  /** none: keep state in this directory (made 0700, one 0600 file per key), so it survives a restart. */
  stateDir: {
    name: 'stateDir',
    flag: 'state-dir',
    kind: 'directory',
    what: 'to keep state in',
    placeholder: '<dir>',
    defaultText: 'none (in memory)',
    doc: "keep scripts' state (store/load) in files in this directory (0700, each file 0600), so it survives a restart; made if missing",
  },
  /** none: keep state in the Redis or Valkey server at this redis:// or rediss:// URL, shared by every instance using it. */
  stateUrl: {
    name: 'stateUrl',
    flag: 'state-url',
    kind: 'redis-url',
    what: 'to keep state in',
    placeholder: '<url>',
    defaultText: 'none (in memory)',
    doc: "keep scripts' state (store/load) in the Redis or Valkey at this redis:// or rediss:// URL, shared by every instance that uses it",
  },
  /** The user's data directory's `codemode-mcp/skills` (src/skills/skills-directory.ts): where saved skills are kept, a folder each. */
  skillsDir: {
    name: 'skillsDir',
    flag: 'skills-dir',
    kind: 'directory',
    what: 'to keep skills in',
    placeholder: '<dir>',
    defaultText: '~/.local/share/codemode-mcp/skills on Linux, by platform: docs/config.md',
    doc: 'where skills are kept, a folder each (SKILL.md and skill.ts or skill.js); made on the first save',
  },
  /**
   * none: every caller over HTTP is one principal. A JSON file `{"<principal>": "<token>", …}`
   * (mode 0600, or it is refused; read again on SIGHUP): each token names a principal, whose
   * 2026-07-28 scripts, state and limits are its own (src/http/tokens-file.ts).
   */
  httpTokensFile: {
    name: 'httpTokensFile',
    flag: 'http-tokens-file',
    kind: 'file',
    what: 'of bearer tokens by principal',
    placeholder: '<file>',
    defaultText: 'none (one principal)',
    doc: 'with --http: a JSON file {"<principal>": "<token>", …} (mode 0600; read again on SIGHUP); each token names a principal, with scripts and state of its own',
  },
  /**
   * none: append one JSON line per tool call a script makes to this file (created 0600; its
   * directory must exist), reopened on SIGUSR2 so it can be rotated.
   */
  auditLog: {
    name: 'auditLog',
    flag: 'audit-log',
    kind: 'file',
    what: 'to append the audit log to',
    placeholder: '<file>',
    defaultText: 'none',
    doc: 'append one JSON line per tool call a script makes (time, principal, script, upstream, tool, outcome, duration) to this file, made 0600; reopened on SIGUSR2',
  },
} as const satisfies Record<string, LocationSettingSpec>;

export type LocationSettingName = keyof typeof LOCATION_SETTINGS;

export type SettingName = keyof typeof SETTINGS;
export type Settings = { readonly [K in SettingName]: number } & {
  /** Globs over script tool names: the tools offered directly beside code_execution (EXPOSE_SETTING). */
  readonly expose: readonly string[];
  /** Scripts over HTTP may save skills (SKILLS_SAVE_SETTING); config file only. */
  readonly skillsSaveOverHttp: boolean;
  /** Which tools' calls wait for a person, by glob over script names (APPROVALS_SETTING); config file only. */
  readonly approvals: Readonly<ApprovalGlobs>;
  /** What an ask call gets when the client can't ask (APPROVAL_FALLBACK_SETTING); config file only. */
  readonly approvalFallback: ApprovalFallback;
  /** What the type check does with what it finds (TYPE_CHECK_SETTING). */
  readonly typeCheck: TypeCheckMode;
} & { readonly [K in SwitchSettingName]: boolean } & {
  /** Absolute paths, or a URL (LOCATION_SETTINGS); null: the default. */
  readonly [K in LocationSettingName]: string | null;
};

/** What one layer sets (the config file's `settings`, or the flags): the server's settings and the log's. */
export interface SettingLayer {
  readonly settings: Partial<Settings>;
  readonly logging: Partial<LogSettings>;
}

export const DEFAULT_SETTINGS: Settings = {
  ...(Object.fromEntries(Object.entries(SETTINGS).map(([name, spec]) => [name, spec.default])) as {
    [K in SettingName]: number;
  }),
  expose: [],
  skillsSaveOverHttp: false,
  approvals: {},
  approvalFallback: 'refuse',
  typeCheck: 'error',
  otel: false,
  otelScriptCode: false,
  auditArguments: false,
  auditLog: null,
  stateDir: null,
  stateUrl: null,
  skillsDir: null,
  httpTokensFile: null,
};

/** `SETTING_INVALID: memoryMaxBytes (--memory-max-bytes) must be a whole number between 4 MiB and 2 GiB; got 1 MiB`, or null. */
export function checkSetting(name: SettingName, value: number): string | null {
  const spec = SETTINGS[name];
  if (!Number.isInteger(value) || value < spec.min || value > spec.max) {
    return (
      `SETTING_INVALID: ${name} (--${spec.flag}) must be a whole number between ` +
      `${formatSettingValue(spec, spec.min)} and ${formatSettingValue(spec, spec.max)}; ` +
      `got ${Number.isFinite(value) ? formatSettingValue(spec, value) : String(value)}`
    );
  }
  return null;
}

/**
 * Settings that are each in range but can't hold together: the default yield past its own cap, a pool
 * past the child cap, a state value past the state's whole, state kept both in a directory and in Redis.
 */
export function checkSettingsTogether(settings: Settings): string | null {
  const { yieldMs, maxYieldMs, pool, maxScriptChildren } = settings;
  if (yieldMs > maxYieldMs) {
    return (
      `SETTING_INVALID: yieldMs (--yield-ms, ${formatSettingValue(SETTINGS.yieldMs, yieldMs)}) must not be past ` +
      `maxYieldMs (--max-yield-ms, ${formatSettingValue(SETTINGS.maxYieldMs, maxYieldMs)})`
    );
  }
  if (pool > maxScriptChildren) {
    return `SETTING_INVALID: pool (--pool, ${pool}) must not be past maxScriptChildren (--max-script-children, ${maxScriptChildren}), which counts pooled children`;
  }
  const { stateValueMaxBytes, stateMaxBytes, stateDir, stateUrl } = settings;
  if (stateValueMaxBytes > stateMaxBytes) {
    return (
      `SETTING_INVALID: stateValueMaxBytes (--state-value-max-bytes, ${formatSettingValue(SETTINGS.stateValueMaxBytes, stateValueMaxBytes)}) ` +
      `must not be past stateMaxBytes (--state-max-bytes, ${formatSettingValue(SETTINGS.stateMaxBytes, stateMaxBytes)}), which holds every value`
    );
  }
  if (stateDir !== null && stateUrl !== null) {
    return (
      `SETTING_INVALID: stateDir (--state-dir) and stateUrl (--state-url) each say where scripts' state is kept; ` +
      `set one of them: a directory for one server, a Redis URL for several`
    );
  }
  return null;
}

export function formatSettingValue(spec: SettingSpec, value: number): string {
  switch (spec.unit) {
    case 'bytes':
      return formatBytes(value);
    case 'ms':
      if (value >= MINUTE && value % MINUTE === 0) return `${value / MINUTE} min`;
      if (value >= SECOND && value % SECOND === 0) return `${value / SECOND} s`;
      return `${value} ms`;
    case 'count':
      return String(value);
  }
}
