/**
 * Which client an upstream's requests and log messages go to. Upstreams are shared by every MCP
 * session, and neither stdio nor MCP carries a link from an upstream's `elicitation/create` back
 * to the call it is serving (over stdio the SDK drops its `relatedRequestId`). What we do know is
 * whose calls are running on that upstream at that moment: a request goes to the one session
 * with calls in flight there. With none, it goes to the fallback (stdio's one session) or is
 * refused; with several, to the one whose client can answer it, or it is refused as ambiguous.
 */
import type { LoggingMessageNotification } from '@modelcontextprotocol/client';
import type { RelayedRequest, RequestRelay } from './relay.js';

/** A session, as the upstreams' requests and logs reach it. */
export interface CallOrigin {
  /** Names it in a refusal: `session 1f3a…`. */
  readonly label: string;
  readonly relay: RequestRelay;
  /** Whether its client declared what the request needs (used to settle a tie). */
  readonly accepts: (request: RelayedRequest) => boolean;
  /** An upstream's `notifications/message`, with the upstream's name. */
  readonly log: (server: string, params: LoggingMessageNotification['params']) => void;
  /** Its client's tokens, when tokenize is on (src/mcp/tokens/): what goes upstream on its behalf passes here. */
  readonly tokens?: OriginTokens;
}

/**
 * What upstream `server` receives of what a client's call carries (its arguments, its answers to
 * the upstream's requests): the client's tokens put back where that server may have real values,
 * values tokenized where it may not (settings.tokenize.restore).
 */
export interface OriginTokens {
  argumentsFor<T>(server: string, value: T): Promise<T>;
}

export type Routed = { readonly origin: CallOrigin } | { readonly refused: string };

export class CallOrigins {
  /** Per upstream name: the origins with calls running on it, and how many each. */
  private readonly inFlight = new Map<string, Map<CallOrigin, number>>();
  private fallback: CallOrigin | undefined;

  /** Where what no call can claim goes: stdio's one session. Unset (HTTP), it goes nowhere. */
  setFallback(origin: CallOrigin | undefined): void {
    this.fallback = origin;
  }

  /** Counts `origin` as having a call on `server` until `call` settles. */
  async track<T>(server: string, origin: CallOrigin | undefined, call: () => Promise<T>): Promise<T> {
    if (origin === undefined) return call();
    const running = this.inFlight.get(server) ?? new Map<CallOrigin, number>();
    this.inFlight.set(server, running);
    running.set(origin, (running.get(origin) ?? 0) + 1);
    try {
      return await call();
    } finally {
      const left = (running.get(origin) ?? 1) - 1;
      if (left > 0) running.set(origin, left);
      else running.delete(origin);
    }
  }

  /** The session a request from upstream `server` goes to, or why it goes to none. */
  routeRequest(server: string, request: RelayedRequest): Routed {
    const callers = this.callersOn(server);
    if (callers.length === 1) return { origin: callers[0]! };
    if (callers.length === 0) {
      if (this.fallback !== undefined) return { origin: this.fallback };
      return {
        refused:
          `codemode-mcp cannot relay ${request.method} from upstream "${server}": no script's call to it is running, ` +
          'so no session asked for it (with several sessions, an upstream is asked on behalf of the session whose call it is serving)',
      };
    }
    const able = callers.filter((origin) => origin.accepts(request));
    if (able.length === 1) return { origin: able[0]! };
    // None able: the first one's relay says which capability its client lacks.
    if (able.length === 0) return { origin: callers[0]! };
    return {
      refused:
        `codemode-mcp cannot relay ${request.method} from upstream "${server}": calls from ${able.length} sessions ` +
        `(${able.map((origin) => origin.label).join(', ')}) are running on it, and MCP does not say which call asked`,
    };
  }

  /** The session an upstream's log message goes to: the one with calls on it, else the fallback; none when several. */
  routeLog(server: string): CallOrigin | undefined {
    const callers = this.callersOn(server);
    if (callers.length === 1) return callers[0];
    return callers.length === 0 ? this.fallback : undefined;
  }

  private callersOn(server: string): CallOrigin[] {
    return [...(this.inFlight.get(server)?.keys() ?? [])];
  }
}
