/**
 * A client's origin (whose calls reach the upstreams, where their requests come back) with that
 * client's tokens: the one inbound boundary toward the upstreams. What goes upstream on the
 * client's behalf (a script's or an exposed tool's arguments, in upstream/routing/call-routes.ts,
 * and the client's answers to an upstream's elicitation or sampling, relayed here) reaches each
 * upstream through `argumentsFor`: the client's tokens put back where settings.tokenize.restore
 * names that upstream, detected values tokenized where it does not.
 */
import type { ScopeTokens } from '../../tokenize/tokenizer.js';
import type { CallOrigin } from '../../upstream/routing/call-origins.js';

/** `origin` as it is when tokenize is off (`tokens` undefined). */
export function withTokens(origin: CallOrigin, tokens: ScopeTokens | undefined): CallOrigin {
  if (tokens === undefined) return origin;
  const argumentsFor = async <T>(server: string, value: T): Promise<T> => (await tokens.argumentsFor(server, value)).value as T;
  return {
    ...origin,
    relay: async (server, request, options) => argumentsFor(server, await origin.relay(server, request, options)),
    tokens: { argumentsFor },
  };
}
