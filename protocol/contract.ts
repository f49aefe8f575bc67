/**
 * The contract between the server (src/script-host) and a script's child process (engine/).
 * Both sides import this file; neither redefines a number from it.
 *
 * Parent → child: frames on the child's stdin. Child → parent: frames on the child's fd 3.
 * A frame is a 4-byte big-endian length, then a body: a JSON message, and for parent → child
 * results the raw bytes of the tool result after a newline (see frames.ts).
 *
 * Before its `start`, a pooled child may be sent the catalog (`catalog`, again whenever it changes),
 * which it makes ready for a script while it waits; a `start` then carries no tools.
 *
 * After its `end`, a child waits for the parent's word: `exit` (it exits; the server holds children
 * whose scripts ended while others run: src/scripts/child-pool.ts), or, when its `end` said it is
 * `reusable`, `reset`: it drops everything of the script (its VM, the VM's memory, the run's host
 * state, its directory's contents), makes a fresh VM from the snapshot and says `ready` again, to
 * take the next script of the same owner. Stdin's end, at any time, is the parent gone: the child
 * removes its own directory and exits.
 */

import { formatBytes } from '../common/format-numbers.js';
import { choice, count, flag, number, optional, shape, text, type MessageOf, type MessagesOf } from './shape.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** Bumped on any change to the messages below; the child states it in `ready`. */
export const PROTOCOL_VERSION = 11;

/** 25 MiB: a child frame past it is a breach; the parent stops reading and ends the script as crashed. */
export const FRAME_MAX_BYTES = 25 * MiB;

/** 32: values in any honest child frame (arguments, output and values travel as strings); more is a breach. */
export const FRAME_MAX_VALUES = 32;

/** 16: calls a script has out at once; more wait inside the script, in its own memory. */
export const CALLS_IN_FLIGHT_MAX = 16;

/** 4 MiB: a call's arguments as JSON; past it the call throws in the script and nothing is sent. */
export const CALL_ARGS_MAX_BYTES = 4 * MiB;

/** 100,000: values in a call's arguments; past it the call throws in the script and nothing is sent. */
export const CALL_ARGS_MAX_VALUES = 100_000;

/** 2,000: nesting of a tool result; deeper is ResultTooLarge, saying the call took effect. */
export const RESULT_MAX_DEPTH = 2_000;

/** A third of the script's memory: a result past it is ResultTooLarge, saying the call took effect. */
export function resultMaxBytes(memoryMaxBytes: number): number {
  return Math.floor(memoryMaxBytes / 3);
}

/** 64 KiB: characters of output in one batch; the child splits longer output, and a longer batch is a breach. */
export const OUTPUT_BATCH_MAX_CHARS = 64 * KiB;

/** 50 ms: output waits at most this long in the child before it is sent, even mid-loop. */
export const OUTPUT_FLUSH_MS = 50;

/** 1 MiB: the script's value as JSON; past it the value comes back as a string that says so. */
export const VALUE_MAX_CHARS = 1 * MiB;

/** 16 KiB: a script's error as the child sends it; the engine cuts a longer one and says so. */
export const ERROR_MAX_CHARS = 16 * KiB;

/** 64 KiB: a notify() payload as JSON; past it notify throws. */
export const NOTIFY_PAYLOAD_MAX_CHARS = 64 * KiB;

/**
 * 16 MiB: the most a server's showMaxBytes may be, and so the most one show message may carry
 * (its blocks as JSON text); past it the message is a breach.
 */
export const SHOW_MAX_BYTES_LIMIT = 16 * MiB;

/** 1 s: notify() sooner than this after the previous one is skipped and returns false. */
export const NOTIFY_SPACING_MS = 1_000;

/** 3 ms: a computing child looks for the stop file no more often than this. */
export const STOP_CHECK_INTERVAL_MS = 3;

/** The stop file's name, in the child's own directory (its cwd). */
export const STOP_FILE_NAME = 'stop';

/** The parent names each child's private directory with this prefix; a child whose parent is gone removes only such a directory. */
export const CHILD_DIR_PREFIX = 'codemode-script-';

/** The child's own settings, given on its command line as JSON. */
export interface ChildOptions {
  readonly memoryMaxBytes: number;
  readonly notifyMax: number;
  /** The server's showMaxBytes: one show() past it throws in the script; 0 turns show() off. */
  readonly showMaxBytes: number;
  /** QuickJS's stack limit, set by the server to trip before the child's V8 stack runs out (src/script-host/stack-budget.ts). */
  readonly quickjsStackBytes: number;
  /** Warm the engine's hot paths on a throwaway VM before making the script's: for pooled children. */
  readonly warm: boolean;
}

export interface ToolEntry {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: unknown;
  readonly outputSchema?: unknown;
  /** A TypeScript-like declaration, made by the server from the schemas, for describe(). */
  readonly declaration: string;
  /** Denied by the server's config: callable by name so the call rejects with ToolRefused, listed nowhere. */
  readonly denied?: boolean;
  /**
   * A saved skill, there for searchTools alone (its hit is named `skills["<name>"]`): not a tool,
   * so not in `tools`, ALL_TOOLS or describe(), and not callable as a tool.
   */
  readonly skill?: boolean;
}

// ---- child → parent ----

/**
 * The script's built-in APIs that the server answers (not an upstream's tools): each travels as a
 * call (`api: true`, `tool` its name here), counted in the same places and caps as tool calls.
 *
 * `resources`: `resources.read` takes `{"uri": string}`, the others `{}`.
 */
export const RESOURCE_CALLS = ['resources.list', 'resources.templates', 'resources.read'] as const;
export type ResourceCall = (typeof RESOURCE_CALLS)[number];

/**
 * `store`/`load` (the script's memory between scripts): `state.load` and `state.remove` take
 * `{"key": string}`, `state.store` `{"key": string, "value": any JSON, "ttlMs"?: number}`,
 * `state.keys` `{"prefix"?: string}`.
 */
export const STATE_CALLS = ['state.load', 'state.store', 'state.keys', 'state.remove'] as const;
export type StateCall = (typeof STATE_CALLS)[number];

/**
 * `skills` (code saved by one script, called by later ones): `skills.list` takes `{}`,
 * `skills.get` `{"name": string, "run"?: true}` (the skill's code, language and input schema, for
 * the prelude to run, `run` saying so, or for `skills.describe`), `skills.save` `{"name", "description", "code": string,
 * "inputSchema"?: object, "language"?: string, "overwrite"?: boolean}`.
 */
export const SKILL_CALLS = ['skills.list', 'skills.get', 'skills.save'] as const;

/**
 * `fetch(url, init)`, made by the server for the script (issue 49): `{"url": string, "method":
 * string, "headers": [[name, value], …], "redirect": "follow"|"manual"|"error", "body"?: string,
 * "bodyBase64"?: string}`, as prelude/fetch.ts makes it. The answer is the response as JSON
 * (src/script-host/apis.ts, FetchAnswer), its body as text when it is UTF-8, else as base64.
 */
export const FETCH_CALLS = ['fetch'] as const;

export const API_CALLS = [...RESOURCE_CALLS, ...STATE_CALLS, ...SKILL_CALLS, ...FETCH_CALLS] as const;

/** The value cap, plus room for the string that says a value was past it. */
const VALUE_FIELD_MAX_CHARS = VALUE_MAX_CHARS + 1_024;

/**
 * The child's messages, described once (protocol/shape.ts): their types below are inferred from
 * this, and the server checks each frame from an untrusted child against it
 * (src/script-host/check-message.ts). A field past its cap is refused with the breach named here.
 */
export const CHILD_MESSAGES = {
  ready: shape({
    v: number(),
    /** How the prelude was installed: restored from the build's snapshot, or evaluated (the fallback). */
    prelude: choice('snapshot', 'evaluated'),
  }),
  call: shape({
    /** 1, 2, 3…: an id not above the last is reused or out of order. */
    id: count(1),
    /** The tool's name as the script called it; for a call of a built-in API, its name in API_CALLS. */
    tool: text(),
    /** The arguments as JSON text, counted by the parent before it parses them. */
    args: text(),
    /** Set for a call of a built-in API (API_CALLS) rather than of a tool. */
    api: optional(flag()),
  }),
  out: shape({ text: text({ maxChars: OUTPUT_BATCH_MAX_CHARS, refusal: 'OUTPUT_PAST_BATCH' }) }),
  notify: shape({
    /** The payload as JSON text. */
    payload: text({ maxChars: NOTIFY_PAYLOAD_MAX_CHARS, json: true, refusal: 'NOTIFY_INVALID' }),
  }),
  /** show(): content blocks for the answer, checked and copied field by field by the prelude. */
  show: shape({
    /** The blocks as JSON text: an array of MCP content blocks (text, image, audio, resource, resource_link). */
    blocks: text({ maxChars: SHOW_MAX_BYTES_LIMIT, refusal: 'SHOW_INVALID' }),
  }),
  /**
   * How the script ended. Its value, when it finished with one, travels as the frame's payload (its
   * JSON as UTF-8), not as a field of the frame's JSON: a large value is then neither escaped by
   * the child nor counted and parsed twice by the parent.
   */
  end: shape(
    {
      status: choice('finished', 'failed', 'stopped'),
      /** The error as the script would print it (message and the script's own frames). */
      error: text({ optional: true, maxChars: ERROR_MAX_CHARS }),
      /** Calls the script made that were never sent, as JSON text of {tool: count}. */
      unsent: text({ optional: true }),
      /** How many answers (results, refusals, results too large) the script read. */
      read: optional(count(0)),
      /**
       * The engine is intact (the script finished or failed by its own code: not stopped, not out
       * of memory, not an engine failure): the child may be `reset` for another script.
       */
      reusable: optional(flag()),
    },
    /** The value as JSON text, when the script finished with a value. */
    { field: 'value', maxChars: VALUE_FIELD_MAX_CHARS, tooLarge: 'VALUE_TOO_LARGE', notJson: 'VALUE_NOT_JSON' },
  ),
} as const;

export type CallMessage = MessageOf<'call', typeof CHILD_MESSAGES.call>;
export type EndMessage = MessageOf<'end', typeof CHILD_MESSAGES.end>;
export type ChildMessage = MessagesOf<typeof CHILD_MESSAGES>;

// ---- parent → child ----

/**
 * The tools a script may call, as JSON text of ToolEntry[], sent to a child before its `start`: it
 * parses them and makes `tools`, `ALL_TOOLS` and the rest ready while it waits, so a run's start
 * costs nothing that grows with the catalog. A later one replaces it.
 */
export interface CatalogMessage {
  readonly t: 'catalog';
  readonly tools: string;
}

export interface StartMessage {
  readonly t: 'start';
  /** The script as the user wrote it, JavaScript or TypeScript: the child strips the types (engine/strip-types.ts). */
  readonly code: string;
  /** The tools the script may call, as JSON text of ToolEntry[]; absent: the last `catalog` sent. */
  readonly tools?: string;
  /**
   * Name prefixes of upstreams that have not listed their tools yet ('' for the only upstream):
   * a call to a name under one goes to the server, which refuses it, instead of "not a tool".
   */
  readonly unlisted: readonly string[];
}

/**
 * How a call ended, as the script sees it:
 * ok: the payload is the tool's result as JSON (isError results included);
 * refused: ToolRefused, nothing was sent; timeout: TimeoutError, the place stays held until
 * `release`; too_large: ResultTooLarge, the call took effect.
 */
export type ResultKind = 'ok' | 'refused' | 'timeout' | 'too_large';

export interface ResultMessage {
  readonly t: 'result';
  readonly id: number;
  readonly kind: ResultKind;
  /** For every kind but ok: what to tell the script. */
  readonly message?: string;
}

export interface ReleaseMessage {
  readonly t: 'release';
  readonly id: number;
}

export interface StopMessage {
  readonly t: 'stop';
}

/** After the child's `end`: it may exit now (the parent removes its directory). */
export interface ExitMessage {
  readonly t: 'exit';
}

/**
 * After an `end` that said `reusable`: a fresh VM for the next script (the last catalog made ready
 * in it), then `ready` again. Nothing of the script that ended is reachable from the next.
 */
export interface ResetMessage {
  readonly t: 'reset';
}

export type ParentMessage =
  CatalogMessage | StartMessage | ResultMessage | ReleaseMessage | StopMessage | ExitMessage | ResetMessage;

/** Why a child's script ended as crashed. Each is a breach of this contract or a lost child. */
export const BREACH = {
  FRAME_UNDECODABLE: 'a frame that does not decode',
  FRAME_TOO_LARGE: `a frame over ${formatBytes(FRAME_MAX_BYTES)}`,
  FRAME_TOO_MANY_VALUES: `a frame with more than ${FRAME_MAX_VALUES} values`,
  MESSAGE_UNEXPECTED: 'a message the protocol does not allow at this point',
  TOOL_NOT_GIVEN: 'a call to a tool the script was not given',
  API_CALL_UNKNOWN: 'a call of a built-in API that it does not have, or with arguments it does not take',
  CALL_ID_REUSED: 'a call id reused or out of order (ids only go up)',
  TOO_MANY_CALLS: `more than ${CALLS_IN_FLIGHT_MAX} calls out`,
  ARGS_TOO_LARGE: `arguments over ${formatBytes(CALL_ARGS_MAX_BYTES)} of JSON`,
  ARGS_TOO_MANY_VALUES: `arguments over ${CALL_ARGS_MAX_VALUES} values`,
  ARGS_INVALID: 'arguments that are not a JSON object',
  TOO_MANY_NOTIFIES: 'too many notifies',
  NOTIFY_INVALID: 'a notify payload that is not JSON or is over its cap',
  SHOW_INVALID: 'shown blocks that are not a JSON list of content blocks, or over showMaxBytes',
  OUTPUT_PAST_BATCH: `output past a batch of ${formatBytes(OUTPUT_BATCH_MAX_CHARS)}`,
  VALUE_TOO_LARGE: `a value over ${formatBytes(VALUE_MAX_CHARS)} of JSON`,
  VALUE_NOT_JSON: 'a value that is not JSON',
  EXIT_BEFORE_END: 'an exit before saying how the script ended',
  PROTOCOL_VERSION: 'a protocol version this server does not speak',
} as const;

export type Breach = keyof typeof BREACH;
