/**
 * What passes between our client and the upstreams besides tool calls: the requests passed on as
 * they came (prompts, resources, completions), the notifications relayed back, and the
 * capabilities our client is told of, as the union of what the upstreams offer.
 */
import type { RequestMethod, ServerCapabilities } from '@modelcontextprotocol/client';

/** The requests of our client that go to one upstream as they came. */
export type PassthroughMethod = Extract<
  RequestMethod,
  | 'prompts/list'
  | 'prompts/get'
  | 'completion/complete'
  | 'resources/list'
  | 'resources/templates/list'
  | 'resources/read'
  | 'resources/subscribe'
  | 'resources/unsubscribe'
>;

/** An upstream's notification about its prompts or resources. */
export type PassthroughNotice =
  { readonly kind: 'prompts_changed' } | { readonly kind: 'resource_updated'; readonly uri: string };

/** What at least one upstream offers, as our client is told at initialize. */
export interface Offered {
  readonly prompts: boolean;
  readonly resources: boolean;
  /** At least one upstream supports `resources/subscribe`. */
  readonly subscribe: boolean;
  readonly completions: boolean;
}

/** What one upstream said at initialize that it offers. */
export function offeredBy(capabilities: ServerCapabilities): Offered {
  return {
    prompts: capabilities.prompts !== undefined,
    resources: capabilities.resources !== undefined,
    subscribe: capabilities.resources?.subscribe === true,
    completions: capabilities.completions !== undefined,
  };
}

/** True where any of them is. */
export function unionOf(offers: readonly Offered[]): Offered {
  return {
    prompts: offers.some((offer) => offer.prompts),
    resources: offers.some((offer) => offer.resources),
    subscribe: offers.some((offer) => offer.subscribe),
    completions: offers.some((offer) => offer.completions),
  };
}

/** The server capabilities declared for the passthrough: each only when offered; list changes always relayed. */
export function passthroughCapabilities(offered: Offered): ServerCapabilities {
  return {
    ...(offered.prompts ? { prompts: { listChanged: true } } : {}),
    ...(offered.resources ? { resources: { listChanged: true, ...(offered.subscribe ? { subscribe: true } : {}) } } : {}),
    ...(offered.completions ? { completions: {} } : {}),
  };
}
