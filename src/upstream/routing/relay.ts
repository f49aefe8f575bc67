/**
 * What an upstream asks of our client during a call (elicitation, sampling, roots), and the
 * logging it sends, handed to the server layer: it relays each to its own client and back.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type Client,
  type ClientCapabilities,
  type CreateMessageRequest,
  type CreateMessageResult,
  type CreateMessageResultWithTools,
  type ElicitRequest,
  type ElicitResult,
  type ListRootsRequest,
  type ListRootsResult,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/client';

export type RelayedRequest = ElicitRequest | CreateMessageRequest | ListRootsRequest;
export type RelayedResult = ElicitResult | CreateMessageResult | CreateMessageResultWithTools | ListRootsResult;

/**
 * Passes a request on to our own client, and its answer back. `server` is the upstream's name in
 * the config (or ours, for a question of our own); `signal` aborts when the upstream cancels its
 * request or goes away.
 */
export type RequestRelay = (server: string, request: RelayedRequest, options: RelayOptions) => Promise<RelayedResult>;

export interface RelayOptions {
  readonly signal: AbortSignal;
  /**
   * Whose call it is for, when that is known: a script's id or an exposed call's key (our own
   * question, an approval; an upstream's `input_required`, which comes as the answer to that call).
   */
  readonly script?: string;
  /**
   * When it is not known (a 2025 upstream's server-to-client request names no call): the callers
   * with calls out on that upstream when it came, one of which it is for (call-origins.ts).
   */
  readonly candidates?: readonly string[];
}

/** An upstream's `notifications/message`, with the upstream's name. */
export type LogListener = (server: string, params: LoggingMessageNotification['params']) => void;

/** What each upstream client declares, so upstreams offer their tools that need a human, a model or roots. */
export const RELAYED_CAPABILITIES: ClientCapabilities = {
  elicitation: { form: {}, url: {} },
  sampling: {},
  roots: { listChanged: true },
};

/** Registers the relaying handlers on one upstream's client. The relay is read at each request. */
export function installRelay(
  client: Client,
  server: string,
  capabilities: ClientCapabilities,
  relay: () => RequestRelay | undefined,
  onLog: LogListener,
): void {
  const forward = async (request: RelayedRequest, signal: AbortSignal): Promise<RelayedResult> => {
    const handler = relay();
    if (handler === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        `codemode-mcp cannot relay ${request.method} from upstream "${server}": no client is attached to answer it`,
      );
    }
    return handler(server, request, { signal });
  };
  // The SDK validates each result against the method's schema, so the casts only narrow the union.
  if (capabilities.elicitation) {
    client.setRequestHandler(
      'elicitation/create',
      async (request, ctx) => (await forward(request, ctx.mcpReq.signal)) as ElicitResult,
    );
  }
  if (capabilities.sampling) {
    client.setRequestHandler(
      'sampling/createMessage',
      async (request, ctx) => (await forward(request, ctx.mcpReq.signal)) as CreateMessageResult,
    );
  }
  if (capabilities.roots) {
    client.setRequestHandler(
      'roots/list',
      async (request, ctx) => (await forward(request, ctx.mcpReq.signal)) as ListRootsResult,
    );
  }
  client.setNotificationHandler('notifications/message', (notification) => onLog(server, notification.params));
}
