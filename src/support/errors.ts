/**
 * Errors the server makes locally, each with a string code and a message that says what to do.
 * Protocol errors (JSON-RPC codes) stay the SDK's `ProtocolError`; these never cross the wire as such.
 */
import { type CodesOf, type ErrorCode, formatCodedMessage } from './error-codes.js';

/**
 * The base of every error codemode-mcp makes itself. Each subclass declares its `name` (the class's
 * own name, as a field: bundling may rename a class, never a string) and gives its `code` (from
 * error-codes.ts: what tests, callers and scripts branch on); the message is `CODE: text`, with the
 * registry's retry hint where a retry can pass, and `text` says what to do.
 */
export abstract class CodemodeError extends Error {
  abstract override readonly name: string;
  readonly code: ErrorCode;
  /** The message after `CODE: `, without the retry hint: for a message that quotes this error within its own. */
  readonly text: string;

  constructor(code: ErrorCode, text: string, options?: ErrorOptions) {
    super(formatCodedMessage(code, text), options);
    this.code = code;
    this.text = text;
  }
}

/** Why a tool call was refused before anything was sent (error-codes.ts says what each means). */
export type ToolRefusedCode = CodesOf<'call'>;

/**
 * A script's call that the server refused, or that failed, before it did anything the script
 * must know of: the script sees it thrown as `ToolRefused`, with this message.
 */
export abstract class RefusedError extends CodemodeError {}

/**
 * A call refused before it was sent: nothing happened upstream. Scripts see it as `ToolRefused`;
 * its message invites a retry only where the registry says one can pass.
 */
export class ToolRefusedError extends RefusedError {
  override readonly name = 'ToolRefusedError';
  declare readonly code: ToolRefusedCode;

  constructor(
    code: ToolRefusedCode,
    /** The tool as the script named it. */
    readonly tool: string,
    /** Why, in a phrase: `upstream "github" is down: spawn gh-mcp ENOENT`. */
    reason: string,
    /** What happened to it: by default nothing was sent; an upstream's 401/403 refused it unread. */
    outcome = 'Nothing was sent',
  ) {
    super(code, `${tool} was refused: ${reason}. ${outcome}.`);
  }
}

/** A call that was sent, and came to grief upstream: `server` is the upstream, `tool` the name the script called. */
export abstract class SentCallError extends CodemodeError {
  constructor(
    code: CodesOf<'sent'>,
    readonly server: string,
    readonly tool: string,
    text: string,
  ) {
    super(code, text);
  }
}

/** A call that was sent, and whose upstream went away before it answered: it may have taken effect. */
export class UpstreamLostError extends SentCallError {
  override readonly name = 'UpstreamLostError';

  constructor(server: string, tool: string, how: 'exited' | 'disconnected' | 'was closed' | 'stopped answering') {
    super(
      'UPSTREAM_LOST',
      server,
      tool,
      `upstream ${server} ${how} while the call to ${tool} was in flight; the call may have taken effect`,
    );
  }
}

/**
 * A call whose answer was too large to read: the upstream's message was past the limit, so it was
 * skipped unread while the connection stayed up. The call took effect; scripts see `ResultTooLarge`.
 */
export class ResultTooLargeError extends SentCallError {
  override readonly name = 'ResultTooLargeError';

  /** `why`: as the script reads it after "The call took effect, but ". */
  constructor(
    server: string,
    tool: string,
    readonly why: string,
  ) {
    super('RESULT_TOO_LARGE', server, tool, `upstream ${server} answered the call to ${tool}, but ${why}; the call took effect`);
  }
}

/**
 * A call the upstream answered with something that isn't a tool result (`null`, a string, content
 * that isn't a list): the call may have taken effect, and the upstream stays up.
 */
export class UpstreamAnswerError extends SentCallError {
  override readonly name = 'UpstreamAnswerError';

  /**
   * `detail`: what was wrong, naming the field and what it held: `result must be an object; got null`.
   * `expected`: what the answer should have been (`a resources/read result` for a read).
   */
  constructor(server: string, tool: string, detail: string, expected = 'a tool result') {
    super(
      'UPSTREAM_ANSWER_INVALID',
      server,
      tool,
      `upstream ${server} answered the call to ${tool} with something that isn't ${expected} (${detail}); the call may have taken effect`,
    );
  }
}

/** Upstreams that can't be served as configured: two tools, or two servers, under one name. */
export class NameCollisionError extends CodemodeError {
  override readonly name = 'NameCollisionError';

  constructor(detail: string) {
    super('NAME_COLLISION', detail);
  }
}

/**
 * A `store`/`load` call whose backend failed (a file it could not write, Redis unreachable): the
 * script sees it as ToolRefused. A store may or may not have been written, as the message says.
 */
export class StateFailedError extends RefusedError {
  override readonly name = 'StateFailedError';

  constructor(label: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super('STATE_FAILED', `${label} failed: ${why}. A store may or may not have been kept; load it to see.`, { cause });
  }
}

/**
 * A `skills` call whose library failed (a folder it could not read or write): the script sees it
 * as ToolRefused. A save may or may not have been kept, as the message says.
 */
export class SkillsFailedError extends RefusedError {
  override readonly name = 'SkillsFailedError';

  constructor(label: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super('SKILLS_FAILED', `${label} failed: ${why}. A save may or may not have been kept; skills.list() shows.`, { cause });
  }
}

/**
 * Why a script's fetch() was refused (src/fetch/): each code names the rule of the config's
 * `settings.fetch` the request broke, and the message says what would allow it.
 */
export type FetchRefusedCode = CodesOf<'fetch'>;

/**
 * A script's fetch() the server refused: the script sees it thrown as `ToolRefused`, with this
 * message. `request` names it as `GET https://api.github.com/user`; `outcome` says whether anything
 * was sent (by default nothing was). A person's denial of a fetch is a ToolRefusedError (`APPROVAL_DENIED`).
 */
export class FetchRefusedError extends RefusedError {
  override readonly name = 'FetchRefusedError';
  declare readonly code: FetchRefusedCode;

  constructor(
    code: FetchRefusedCode,
    readonly request: string,
    reason: string,
    outcome = 'Nothing was sent',
  ) {
    super(code, `fetch ${request} was refused: ${reason}. ${outcome}.`);
  }
}

/**
 * A script's fetch() that failed on the network (no connection, a reset, a TLS failure, past
 * fetchTimeoutMs): the script sees a TypeError, as the web's fetch gives one. It may have reached the server.
 */
export class FetchFailedError extends CodemodeError {
  override readonly name = 'FetchFailedError';

  constructor(request: string, why: string, options?: ErrorOptions) {
    super('FETCH_FAILED', `fetch ${request} failed: ${why}`, options);
  }
}

/** What an error says, for a message that quotes it: one of ours without its `CODE: `, another's message. */
export function describeError(error: unknown): string {
  if (error instanceof CodemodeError) return error.text;
  return error instanceof Error ? error.message : String(error);
}
