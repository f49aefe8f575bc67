/**
 * What an upstream asks of the client during a script's call (elicitation, sampling, roots),
 * asked of our own client in turn, with its answer handed back to the upstream.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type ClientCapabilities,
  type RequestId,
  type Server,
} from '@modelcontextprotocol/server';
import { quoteInput } from '../support/echo.js';
import type { RelayedRequest, RequestRelay } from '../upstream/routing/relay.js';
import { SDK_CALL_TIMEOUT_MS } from '../upstream/connection/session.js';

/**
 * No timeout of our own on a relayed request (a human may take minutes to answer): the upstream's
 * own timeout governs, since its cancel aborts ours. The SDK wants a number, so the largest a timer takes.
 */
export const RELAY_TIMEOUT_MS = SDK_CALL_TIMEOUT_MS;

export interface RelayRoute {
  /** Names the session in a refusal. */
  readonly session: string;
  /** Over HTTP: the client's call whose response stream the request goes out on; none, the GET stream. */
  readonly relatedRequest: () => RequestId | undefined;
  /** Over HTTP: whether the client holds its GET stream open. Unset (stdio): always reachable. */
  readonly streamOpen?: () => boolean;
}

/**
 * Relays each request to the client `server` is connected to; refuses, naming what is missing,
 * when the client lacks the capability. An upstream may ask before our client has initialized
 * (server-filesystem lists roots as soon as it is up): such a request waits for `initialized`.
 */
export function relayToClient(server: Server, initialized: Promise<void>, route: RelayRoute): RequestRelay {
  return async (upstream, request, { signal }) => {
    await untilAborted(initialized, signal);
    const missing = missingCapability(server.getClientCapabilities(), request);
    if (missing !== undefined) {
      const client = server.getClientVersion();
      const who = client === undefined ? 'the MCP client' : `the MCP client ${quoteInput(`${client.name} ${client.version}`)}`;
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        `codemode-mcp cannot relay ${request.method} from upstream "${upstream}": ${who} did not declare ${missing}`,
      );
    }
    const relatedRequestId = route.relatedRequest();
    // The SDK's HTTP transport drops a request meant for the GET stream when there is none: say so instead.
    if (relatedRequestId === undefined && route.streamOpen?.() === false) {
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `codemode-mcp cannot relay ${request.method} from upstream "${upstream}" to ${route.session}: no call of the session is ` +
          'open and its client holds no GET stream, so nothing can carry the request to it',
      );
    }
    const options = { signal, timeout: RELAY_TIMEOUT_MS, ...(relatedRequestId !== undefined ? { relatedRequestId } : {}) };
    switch (request.method) {
      case 'elicitation/create':
        // The generic request, not elicitInput: the upstream checks the answer against its own schema.
        return await server.request({ method: 'elicitation/create', params: request.params }, options);
      case 'sampling/createMessage':
        return await server.createMessage(request.params, options);
      case 'roots/list':
        return await server.listRoots(request.params, options);
    }
  };
}

/** Whether a client with these capabilities can answer the request. */
export function clientCanAnswer(capabilities: ClientCapabilities | undefined, request: RelayedRequest): boolean {
  return missingCapability(capabilities, request) === undefined;
}

/** The capability the request needs and the client did not declare, in words; undefined when it is there. */
export function missingCapability(capabilities: ClientCapabilities | undefined, request: RelayedRequest): string | undefined {
  switch (request.method) {
    case 'elicitation/create': {
      const elicitation = capabilities?.elicitation;
      const mode = request.params.mode ?? 'form';
      if (elicitation === undefined) return 'the elicitation capability, so it cannot ask the user';
      // A bare `elicitation: {}` means form mode (the spec's rule from before modes existed).
      const supported =
        mode === 'url' ? elicitation.url !== undefined : elicitation.form !== undefined || elicitation.url === undefined;
      const declared = Object.keys(elicitation).slice(0, 4).map(quoteInput).join(', ');
      return supported
        ? undefined
        : `${mode}-mode elicitation (its elicitation capability declares ${declared === '' ? 'no mode' : declared})`;
    }
    case 'sampling/createMessage': {
      if (capabilities?.sampling === undefined) return 'the sampling capability, so it cannot run a model for the tool';
      const wantsTools = request.params.tools !== undefined || request.params.toolChoice !== undefined;
      return wantsTools && capabilities.sampling.tools === undefined ? 'sampling with tools' : undefined;
    }
    case 'roots/list':
      return capabilities?.roots === undefined ? 'the roots capability, so it has no roots to list' : undefined;
  }
}

/** The client capability a request needs, as MissingRequiredClientCapabilityError names it. */
export function requiredCapability(request: RelayedRequest): ClientCapabilities {
  switch (request.method) {
    case 'elicitation/create':
      return { elicitation: request.params.mode === 'url' ? { url: {} } : { form: {} } };
    case 'sampling/createMessage':
      return { sampling: request.params.tools !== undefined ? { tools: {} } : {} };
    case 'roots/list':
      return { roots: {} };
  }
}

/** `promise`, or a rejection with the signal's reason once it aborts. */
function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
