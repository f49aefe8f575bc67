/**
 * Errors the server makes locally, each with a string code and a message that says what to do.
 * Protocol errors (JSON-RPC codes) stay the SDK's `ProtocolError`; these never cross the wire as such.
 */

/**
 * The base of every error codemode-mcp makes itself. Each subclass declares its `name` (the class's
 * own name, as a field: bundling may rename a class, never a string) and its `code` (UPPER_SNAKE,
 * stable: what tests and callers branch on), and its message says what to do.
 */
export abstract class CodemodeError extends Error {
  abstract override readonly name: string;
  abstract readonly code: string;
}

/** Why a tool call was refused before anything was sent. */
export type ToolRefusedCode =
  | 'TOOL_DENIED'
  | 'UPSTREAM_DOWN'
  | 'UPSTREAM_CONNECTING'
  | 'TOOL_UNKNOWN'
  | 'UPSTREAM_UNAUTHORIZED'
  /** `resources.read(uri)` of a URI no upstream lists or has a template for. */
  | 'RESOURCE_UNKNOWN'
  /** `resources.read(uri)` of a URI the entry's `resources` policy does not allow. */
  | 'RESOURCE_DENIED'
  /** `store`/`load` where the command serves no state (none is wired to the script). */
  | 'STATE_OFF'
  /** `skills.*` where the command serves no skills (none is wired to the script). */
  | 'SKILLS_OFF'
  /** A call that needs approval (issue 27), denied by a person (or the question dismissed). */
  | 'APPROVAL_DENIED'
  /** A call that needs approval, unanswered within approvalTimeoutMs. */
  | 'APPROVAL_TIMED_OUT'
  /** A call that needs approval where no person could be asked (no elicitation, and approvalFallback refuses). */
  | 'APPROVAL_UNAVAILABLE';

/**
 * A script's call that the server refused, or that failed, before it did anything the script
 * must know of: the script sees it thrown as `ToolRefused`, with this message.
 */
export abstract class RefusedError extends CodemodeError {}

/**
 * A call refused before it was sent: nothing happened upstream, so it is safe to retry later.
 * Scripts see it as `ToolRefused`.
 */
export class ToolRefusedError extends RefusedError {
  override readonly name = 'ToolRefusedError';

  constructor(
    readonly code: ToolRefusedCode,
    /** The tool as the script named it. */
    readonly tool: string,
    /** Why, in a phrase: `upstream "github" is down: spawn gh-mcp ENOENT`. */
    reason: string,
    /** What happened to it: by default nothing was sent; an upstream's 401/403 refused it unread. */
    outcome = 'Nothing was sent',
  ) {
    super(`${code}: ${tool} was refused: ${reason}. ${outcome}; it is safe to retry later.`);
  }
}

/** A call that was sent, and came to grief upstream: `server` is the upstream, `tool` the name the script called. */
export abstract class SentCallError extends CodemodeError {
  abstract override readonly code: string;

  constructor(
    readonly server: string,
    readonly tool: string,
    message: string,
  ) {
    super(message);
  }
}

/** A call that was sent, and whose upstream went away before it answered: it may have taken effect. */
export class UpstreamLostError extends SentCallError {
  override readonly name = 'UpstreamLostError';
  readonly code = 'UPSTREAM_LOST';

  constructor(server: string, tool: string, how: 'exited' | 'disconnected' | 'was closed' | 'stopped answering') {
    super(server, tool, `upstream ${server} ${how} while the call to ${tool} was in flight; the call may have taken effect`);
  }
}

/**
 * A call whose answer was too large to read: the upstream's message was past the limit, so it was
 * skipped unread while the connection stayed up. The call took effect; scripts see `ResultTooLarge`.
 */
export class ResultTooLargeError extends SentCallError {
  override readonly name = 'ResultTooLargeError';
  readonly code = 'RESULT_TOO_LARGE';

  /** `why`: as the script reads it after "The call took effect, but ". */
  constructor(
    server: string,
    tool: string,
    readonly why: string,
  ) {
    super(server, tool, `upstream ${server} answered the call to ${tool}, but ${why}; the call took effect`);
  }
}

/**
 * A call the upstream answered with something that isn't a tool result (`null`, a string, content
 * that isn't a list): the call may have taken effect, and the upstream stays up.
 */
export class UpstreamAnswerError extends SentCallError {
  override readonly name = 'UpstreamAnswerError';
  readonly code = 'UPSTREAM_ANSWER_INVALID';

  /**
   * `detail`: what was wrong, naming the field and what it held: `result must be an object; got null`.
   * `expected`: what the answer should have been (`a resources/read result` for a read).
   */
  constructor(server: string, tool: string, detail: string, expected = 'a tool result') {
    super(
      server,
      tool,
      `upstream ${server} answered the call to ${tool} with something that isn't ${expected} (${detail}); the call may have taken effect`,
    );
  }
}

/** Upstreams that can't be served as configured: two tools, or two servers, under one name. */
export class NameCollisionError extends CodemodeError {
  override readonly name = 'NameCollisionError';
  readonly code = 'NAME_COLLISION';

  constructor(detail: string) {
    super(`NAME_COLLISION: ${detail}`);
  }
}

/**
 * A `store`/`load` call whose backend failed (a file it could not write, Redis unreachable): the
 * script sees it as ToolRefused. A store may or may not have been written, as the message says.
 */
export class StateFailedError extends RefusedError {
  override readonly name = 'StateFailedError';
  readonly code = 'STATE_FAILED';

  constructor(label: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`STATE_FAILED: ${label} failed: ${why}. A store may or may not have been kept; load it to see.`, { cause });
  }
}

/**
 * A `skills` call whose library failed (a folder it could not read or write): the script sees it
 * as ToolRefused. A save may or may not have been kept, as the message says.
 */
export class SkillsFailedError extends RefusedError {
  override readonly name = 'SkillsFailedError';
  readonly code = 'SKILLS_FAILED';

  constructor(label: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`SKILLS_FAILED: ${label} failed: ${why}. A save may or may not have been kept; skills.list() shows.`, { cause });
  }
}

/**
 * Why a script's fetch() was refused (src/fetch/): each code names the rule of the config's
 * `settings.fetch` the request broke, and the message says what would allow it.
 */
export type FetchRefusedCode =
  /** An origin settings.fetch does not list (or it lists none: fetch is off). */
  | 'FETCH_ORIGIN'
  /** A path the origin's `paths` globs do not match. */
  | 'FETCH_PATH'
  /** A method the origin's `methods` do not list. */
  | 'FETCH_METHOD'
  /** A header the server writes itself (Host, Content-Length, …). */
  | 'FETCH_HEADER'
  /** Authorization, a header the origin's entry sets, or a user name or password in the URL: credentials are the server's to add. */
  | 'FETCH_CREDENTIAL'
  /** An address that is, or a name that resolves to, loopback, private, link-local or a cloud metadata address, without `allowPrivate`. */
  | 'FETCH_PRIVATE'
  /** A redirect to an origin not listed, or one `redirect: "error"` refuses. */
  | 'FETCH_REDIRECT'
  /** A response body past fetchMaxBytes: the request was sent. */
  | 'FETCH_TOO_LARGE';

/**
 * A script's fetch() the server refused: the script sees it thrown as `ToolRefused`, with this
 * message. `request` names it as `GET https://api.github.com/user`; `outcome` says whether anything
 * was sent (by default nothing was).
 */
export class FetchRefusedError extends RefusedError {
  override readonly name = 'FetchRefusedError';

  constructor(
    readonly code: FetchRefusedCode,
    readonly request: string,
    reason: string,
    outcome = 'Nothing was sent',
  ) {
    super(`${code}: fetch ${request} was refused: ${reason}. ${outcome}.`);
  }
}

/**
 * A script's fetch() that failed on the network (no connection, a reset, a TLS failure, past
 * fetchTimeoutMs): the script sees a TypeError, as the web's fetch gives one. It may have reached the server.
 */
export class FetchFailedError extends CodemodeError {
  override readonly name = 'FetchFailedError';
  readonly code = 'FETCH_FAILED';

  constructor(request: string, why: string, options?: ErrorOptions) {
    super(`fetch ${request} failed: ${why}`, options);
  }
}
