/**
 * Errors the server makes locally, each with a string code and a message that says what to do.
 * Protocol errors (JSON-RPC codes) stay the SDK's `ProtocolError`; these never cross the wire as such.
 */

/** Why a tool call was refused before anything was sent. */
export type ToolRefusedCode = 'TOOL_DENIED' | 'UPSTREAM_DOWN' | 'UPSTREAM_CONNECTING' | 'TOOL_UNKNOWN';

/**
 * A call refused before it was sent: nothing happened upstream, so it is safe to retry later.
 * Scripts see it as `ToolRefused`.
 */
export class ToolRefusedError extends Error {
  override readonly name = 'ToolRefusedError';

  constructor(
    readonly code: ToolRefusedCode,
    /** The tool as the script named it. */
    readonly tool: string,
    /** Why, in a phrase: `upstream "github" is down: spawn gh-mcp ENOENT`. */
    reason: string,
  ) {
    super(`${code}: ${tool} was refused: ${reason}. Nothing was sent; it is safe to retry later.`);
  }
}

/** A call that was sent, and whose upstream went away before it answered: it may have taken effect. */
export class UpstreamLostError extends Error {
  override readonly name = 'UpstreamLostError';
  readonly code = 'UPSTREAM_LOST';

  constructor(
    readonly server: string,
    readonly tool: string,
    how: 'exited' | 'disconnected' | 'was closed',
  ) {
    super(`upstream ${server} ${how} while the call to ${tool} was in flight; the call may have taken effect`);
  }
}

/** Upstreams that can't be served as configured: two tools, or two servers, under one name. */
export class NameCollisionError extends Error {
  override readonly name = 'NameCollisionError';
  readonly code = 'NAME_COLLISION';

  constructor(detail: string) {
    super(`NAME_COLLISION: ${detail}`);
  }
}
