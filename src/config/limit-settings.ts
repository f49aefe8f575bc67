/**
 * The settings that are numbers: lifetimes, caps and sizes, each a whole number of its unit
 * within a range. `doc` is what --help says, `details` what the README's table says.
 */
import { SHOW_MAX_BYTES_LIMIT } from '../../protocol/contract.js';
import { numberSetting } from './setting-kinds.js';
import { GiB, KiB, MINUTE, MiB, SECOND } from './setting-units.js';

const DAY = 24 * 60 * MINUTE;

export const SETTINGS = {
  yieldMs: numberSetting({
    name: 'yieldMs',
    flag: 'yield-ms',
    unit: 'ms',
    default: 30 * SECOND,
    min: 0,
    max: 3_600 * SECOND,
    doc: 'a run or wait returns by then with the output so far; the script keeps running',
    details: 'a run or wait answers by then with the output so far; the script keeps running',
  }),
  maxYieldMs: numberSetting({
    name: 'maxYieldMs',
    flag: 'max-yield-ms',
    unit: 'ms',
    default: 600 * SECOND,
    min: 0,
    max: 3_600 * SECOND,
    doc: "cap on a call's yield_ms; a larger yield_ms is refused with the cap in the message",
    details: 'a larger `yield_ms` is refused, naming the cap',
  }),
  scriptLifetimeMs: numberSetting({
    name: 'scriptLifetimeMs',
    flag: 'script-lifetime-ms',
    unit: 'ms',
    default: 15 * MINUTE,
    min: 1 * SECOND,
    max: DAY,
    doc: 'then the script is stopped and its ending is an error',
    details: 'the script is stopped, and its ending is an error',
  }),
  // As many as maxScriptChildren, so one session may use every child.
  maxRunningScripts: numberSetting({
    name: 'maxRunningScripts',
    flag: 'max-running-scripts',
    unit: 'count',
    default: 16,
    min: 1,
    max: 64,
    doc: 'per MCP session; a further run is refused, naming the running scripts',
    details:
      'per session (for 2026-07-28 clients over HTTP, which have none: per principal); a further run is refused, naming the running scripts',
  }),
  maxScriptChildren: numberSetting({
    name: 'maxScriptChildren',
    flag: 'max-script-children',
    unit: 'count',
    default: 16,
    min: 1,
    max: 256,
    doc: 'child processes across all sessions, pooled ones included; a further run is refused',
    details:
      "script processes across sessions, pooled ones and those kept for their owner's next script included (not one whose script has ended and is exiting, or held back from exiting while other scripts run: at most this many more, for at most 250 ms, see the [fixed limits](docs/config.md#fixed-limits)); a further run is refused. Shared fairly: while several sessions run scripts, each may hold its share (this cap divided by the sessions active in the last minute)",
  }),
  memoryMaxBytes: numberSetting({
    name: 'memoryMaxBytes',
    flag: 'memory-max-bytes',
    unit: 'bytes',
    default: 128 * MiB,
    min: 4 * MiB,
    max: 2 * GiB,
    doc: 'QuickJS memory limit per script; past it the script fails as out of memory',
    details: 'the QuickJS memory limit per script; past it the script fails as out of memory',
  }),
  toolCallTimeoutMs: numberSetting({
    name: 'toolCallTimeoutMs',
    flag: 'tool-call-timeout-ms',
    unit: 'ms',
    default: 60 * SECOND,
    min: 1,
    max: 3_600 * SECOND,
    doc: 'a call past it rejects with TimeoutError in the script; its place is held until the tool answers',
    details: 'the call rejects with `TimeoutError`; its place is held until the tool answers',
  }),
  approvalTimeoutMs: numberSetting({
    name: 'approvalTimeoutMs',
    flag: 'approval-timeout-ms',
    unit: 'ms',
    default: 10 * MINUTE,
    min: 1 * SECOND,
    max: DAY,
    doc: "how long a call that needs approval waits for a person's answer; then it is refused and nothing is sent",
    details:
      'a call that needs [approval](docs/approvals.md) and has no answer by then is refused (`ToolRefused`, nothing sent); the wait does not count toward `toolCallTimeoutMs`',
  }),
  endedScriptsKept: numberSetting({
    name: 'endedScriptsKept',
    flag: 'ended-scripts-kept',
    unit: 'count',
    default: 8,
    min: 0,
    max: 256,
    doc: 'per session, for a later wait or list; the oldest ended script is forgotten first',
    details:
      'per session (for 2026-07-28 clients over HTTP: per principal); the oldest ended script is forgotten, those whose ending was read first',
  }),
  /**
   * 64 MiB per owner: the results of its ended MCP tasks kept for tasks/get, as JSON bytes; past
   * it the oldest results are dropped, and a tasks/get of one says so.
   */
  taskResultsMaxBytes: numberSetting({
    name: 'taskResultsMaxBytes',
    flag: 'task-results-max-bytes',
    unit: 'bytes',
    default: 64 * MiB,
    min: 1 * MiB,
    max: 4 * GiB,
    doc: "per session or principal, the ended tasks' results kept for tasks/get; past it the oldest are dropped, and tasks/get says so",
    details:
      'per session (for 2026-07-28 clients over HTTP: per principal), the results of ended MCP tasks kept for `tasks/get`, as JSON; past it the oldest results are dropped, and a `tasks/get` of one says so',
  }),
  notifyMax: numberSetting({
    name: 'notifyMax',
    flag: 'notify-max',
    unit: 'count',
    default: 20,
    min: 0,
    max: 1_000,
    doc: 'notify() calls per script; past it notify throws; 0 turns notify off',
    details: '`notify()` calls per script; past it `notify` throws; 0 turns it off',
  }),
  showMaxBytes: numberSetting({
    name: 'showMaxBytes',
    flag: 'show-max-bytes',
    unit: 'bytes',
    default: 4 * MiB,
    min: 0,
    max: SHOW_MAX_BYTES_LIMIT,
    doc: "bytes of content blocks (images, audio, resources) a script's answer carries; blocks past it are left out and counted; 0 turns show() off",
    details:
      'bytes of content blocks (images, audio, resources) one answer carries; blocks past it are left out and the answer counts them; one `show()` larger than this throws; 0 turns `show()` off',
  }),
  pool: numberSetting({
    name: 'pool',
    flag: 'pool',
    unit: 'count',
    default: 2,
    min: 0,
    max: 16,
    doc: 'script children started ahead so a run starts at once; a burst grows it up to maxScriptChildren; 0 turns the pool off',
    details:
      'children started ahead of scripts; a burst of runs grows the pool up to `maxScriptChildren` (see the [fixed limits](docs/config.md#fixed-limits)); 0 turns the pool off',
  }),
  // A new child's CPU, spread over 100 scripts a child, was more than each script and its reset
  // cost; at 1,000 it is a small part (bench/ANALYSIS.md, "Figures from the code's comments").
  childMaxScripts: numberSetting({
    name: 'childMaxScripts',
    flag: 'child-max-scripts',
    unit: 'count',
    default: 1000,
    min: 1,
    max: 10_000,
    doc: 'scripts one child process runs, one after another, each in a fresh engine and only for the same session or principal; then it exits; 1: a new process for every script',
    details:
      "scripts one child process runs, one after another, each in a fresh engine and only for the same session (2025-03-26/2025-11-25 clients) or principal (2026-07-28 clients, or a stdio server's one client); then it exits and the pool starts another; 1: a new process for every script (see [docs/architecture.md](docs/architecture.md#script-children))",
  }),
  childMaxAgeMs: numberSetting({
    name: 'childMaxAgeMs',
    flag: 'child-max-age-ms',
    unit: 'ms',
    default: 5 * MINUTE,
    min: 1 * SECOND,
    max: DAY,
    doc: 'age past which a child process takes no further script; it exits when its script ends',
  }),
  maxMessageBytes: numberSetting({
    name: 'maxMessageBytes',
    flag: 'max-message-bytes',
    unit: 'bytes',
    default: 16 * MiB,
    min: 1 * MiB,
    max: 256 * MiB,
    doc: 'longest message a client may send; a longer request gets a JSON-RPC error naming this setting, and the server reads on',
    details:
      'the longest message a client may send; a longer request gets JSON-RPC error `-32600` naming this setting (one with no id is dropped with a log line), and the server reads on',
  }),
  startupWaitMs: numberSetting({
    name: 'startupWaitMs',
    flag: 'startup-wait-ms',
    unit: 'ms',
    default: 15 * SECOND,
    min: 0,
    max: 10 * MINUTE,
    doc: "tools/list and tools/call wait this long for the upstreams' first start; then they answer with the tools known so far, the log and the description name the upstreams still starting",
    details:
      "`tools/list` and `tools/call` wait this long for the upstreams' first start; then they answer with the tools known so far, and the log and the description name the upstreams still starting",
  }),
  upstreamStartTimeoutMs: numberSetting({
    name: 'upstreamStartTimeoutMs',
    flag: 'upstream-start-timeout-ms',
    unit: 'ms',
    default: 60 * SECOND,
    min: 1 * SECOND,
    max: 60 * MINUTE,
    doc: 'an upstream that has not answered initialize, or a page of tools/list, by then has failed to start; it is retried with backoff',
    details:
      "an upstream that hasn't answered `initialize`, or a page of `tools/list`, by then has failed to start; it is retried with backoff",
  }),
  upstreamPingIntervalMs: numberSetting({
    name: 'upstreamPingIntervalMs',
    flag: 'upstream-ping-interval-ms',
    unit: 'ms',
    default: 30 * SECOND,
    min: 0,
    max: 60 * MINUTE,
    doc: 'a remote (http/sse) upstream idle this long is pinged, and pinged before its next call; 0 turns pings off',
  }),
  upstreamPingTimeoutMs: numberSetting({
    name: 'upstreamPingTimeoutMs',
    flag: 'upstream-ping-timeout-ms',
    unit: 'ms',
    default: 10 * SECOND,
    min: 1,
    max: 10 * MINUTE,
    doc: 'a remote upstream that does not answer a ping by then is marked down, with the reason, and reconnected with backoff',
    details: "a remote upstream that doesn't answer a ping by then is down, with the reason, and reconnected with backoff",
  }),
  httpSessionIdleMs: numberSetting({
    name: 'httpSessionIdleMs',
    flag: 'http-session-idle-ms',
    unit: 'ms',
    default: 30 * MINUTE,
    min: 1 * SECOND,
    max: DAY,
    doc: 'with --http, a session with no request open this long ends: its running scripts are stopped and its id is forgotten',
    details:
      'with `--http`, a session with no request open this long ends: its running scripts are stopped (each ending logged) and its id gets `404`',
  }),
  // Each session holds an MCP server, its scripts' records and its relays, and clients that never
  // send DELETE leave theirs until httpSessionIdleMs.
  maxHttpSessions: numberSetting({
    name: 'maxHttpSessions',
    flag: 'max-http-sessions',
    unit: 'count',
    default: 256,
    min: 1,
    max: 10_000,
    doc: 'with --http, the most sessions open at once; a further initialize is refused with 503 until one ends',
    details:
      'with `--http`, sessions open at once; a further `initialize` gets `503` (with `Retry-After: 5`) and a JSON-RPC error naming this setting and what frees a place (a `DELETE`, the idle end); the open sessions are untouched',
  }),
  drainGraceMs: numberSetting({
    name: 'drainGraceMs',
    flag: 'drain-grace-ms',
    unit: 'ms',
    default: 30 * SECOND,
    min: 0,
    max: 60 * MINUTE,
    doc: 'with --http, on SIGTERM: how long running scripts may go on ending while no new one starts, before the shutdown stops those left; 0 shuts down at once',
    details:
      'with `--http`, on SIGTERM the instance drains this long: no new session or script (a `run` is refused saying the instance is draining; `/healthz` answers `503` `draining`), `wait`s on its running scripts answered; then, or once they have all ended, it shuts down, stopping those left. 0 shuts down at once; a second SIGTERM ends the drain ([docs/deploy.md](docs/deploy.md#draining))',
  }),
  stateValueMaxBytes: numberSetting({
    name: 'stateValueMaxBytes',
    flag: 'state-value-max-bytes',
    unit: 'bytes',
    default: 1 * MiB,
    min: 1 * KiB,
    // A store's key and value travel as one call's arguments, which CALL_ARGS_MAX_BYTES caps at 4 MiB.
    max: 3 * MiB,
    doc: 'JSON of one stored value; a larger store() is refused, naming this setting, and nothing is written',
    details:
      'the JSON of one value a script stores; a larger one is refused (`STATE_VALUE_TOO_LARGE`, naming this setting) and nothing is written',
  }),
  stateMaxBytes: numberSetting({
    name: 'stateMaxBytes',
    flag: 'state-max-bytes',
    unit: 'bytes',
    default: 64 * MiB,
    min: 1 * KiB,
    max: 16 * GiB,
    doc: "a principal's stored keys and values together; a store() past it is refused, naming this setting, and nothing is written",
    details:
      'per principal, its stored keys and values together (UTF-8 bytes); a store past it is refused (`STATE_FULL`) and nothing is written',
  }),
  stateMaxKeys: numberSetting({
    name: 'stateMaxKeys',
    flag: 'state-max-keys',
    unit: 'count',
    default: 10_000,
    min: 1,
    max: 1_000_000,
    doc: 'keys a principal keeps; a store() of a further key is refused, naming this setting; a key already kept may still change',
    details:
      'keys per principal; a store of a further key is refused (`STATE_TOO_MANY_KEYS`); a key already kept may still change',
  }),
  // A compiler still checking past it is killed and started again, so a hostile script costs one limit's time (and is refused).
  typeCheckTimeoutMs: numberSetting({
    name: 'typeCheckTimeoutMs',
    flag: 'type-check-timeout-ms',
    unit: 'ms',
    default: 3 * SECOND,
    min: 100,
    max: 60 * SECOND,
    doc: 'how long a run waits for its type check to begin, and then for the check itself; a script whose own check runs past it is refused',
    details:
      'a script (or skill) whose check has not begun by then (a wait for the compiler to start, or for another check) runs unchecked, its answer saying "Not type-checked: …"; one whose own check runs past it (or past the compiler\'s 256 MiB) is refused, nothing run ("took longer than …"; `// @ts-nocheck` skips the check; with `typeCheck: "warn"` it runs unchecked), and the compiler is started again for the next script',
  }),
  /**
   * 10 MiB: the most of one response body a script's fetch() reads (after decompression); the
   * server streams it and stops reading past this, and the fetch rejects with ToolRefused
   * FETCH_TOO_LARGE, saying the request was sent. A body also travels to the script within a third
   * of its memory (memoryMaxBytes), as any result does.
   */
  fetchMaxBytes: numberSetting({
    name: 'fetchMaxBytes',
    flag: 'fetch-max-bytes',
    unit: 'bytes',
    default: 10 * MiB,
    min: 1 * KiB,
    max: 256 * MiB,
    doc: "bytes of one response body a script's fetch() reads; past it reading stops and the fetch is refused (FETCH_TOO_LARGE), the request having been sent",
    details:
      "one response body a script's `fetch()` reads, once decompressed; past it reading stops and the fetch is refused (`FETCH_TOO_LARGE`), saying the request was sent",
  }),
  /**
   * 30 s: one fetch() from its first byte sent to its body's last byte read, redirects included;
   * past it the request is aborted and the fetch rejects with TypeError. The call's own
   * toolCallTimeoutMs runs as well, from when the script made it.
   */
  fetchTimeoutMs: numberSetting({
    name: 'fetchTimeoutMs',
    flag: 'fetch-timeout-ms',
    unit: 'ms',
    default: 30 * SECOND,
    min: 1,
    max: 60 * MINUTE,
    doc: "one fetch() from sending to its body's end, redirects included; past it the request is aborted and the fetch rejects with TypeError",
    details:
      "one `fetch()` from sending to its body's end, redirects included; past it the request is aborted and the fetch rejects with `TypeError` (the call's `toolCallTimeoutMs` runs too)",
  }),
} as const;
