/**
 * The upstreams' resources as our client sees them: `resources/list` and `resources/templates/list`
 * fill each page across the upstreams' own pages in config order (merged-pages.ts), each keeping what
 * resource-routes.ts routes to that upstream (the first in config order keeps a URI listed twice;
 * the `resources` policy filters); `resources/read` goes to the upstream a URI routes to;
 * subscriptions are counted across our clients, so an upstream is asked once per URI.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ReadResourceResult,
} from '@modelcontextprotocol/client';
import { quoteInput } from '../../support/echo.js';
import { mergedPage } from './merged-pages.js';
import { readyOrRefuse } from './prompt-routes.js';
import type { ResourceRoutes } from './resource-routes.js';
import type { Upstream } from '../connection/upstream.js';
import { Logger, type Log } from '../../support/log.js';

export class ResourcePassthrough {
  /** Per URI: the upstream asked to watch it, and our clients (sessions) that subscribed. */
  private readonly subscriptions = new Map<string, { server: string; subscribers: Set<object> }>();
  private readonly log: Logger;

  constructor(
    private readonly upstreams: readonly Upstream[],
    private readonly routes: ResourceRoutes,
    log: Log,
  ) {
    this.log = Logger.of(log);
  }

  list(cursor: string | undefined, signal?: AbortSignal): Promise<ListResourcesResult> {
    return mergedPage(this.upstreams, cursor, signal, {
      method: 'resources/list',
      takesPart: (upstream) => upstream.offered?.resources === true,
      shape: (upstream, resources) =>
        resources.filter((resource) => {
          const route = this.routes.route(resource.uri);
          return route?.via === 'listed' && route.server === upstream.name && route.allowed;
        }),
    });
  }

  templates(cursor: string | undefined, signal?: AbortSignal): Promise<ListResourceTemplatesResult> {
    return mergedPage(this.upstreams, cursor, signal, {
      method: 'resources/templates/list',
      takesPart: (upstream) => upstream.offered?.resources === true,
      shape: (upstream, templates) => {
        const kept = new Set(
          this.routes
            .templates()
            .filter((entry) => entry.server === upstream.name)
            .map((entry) => entry.template.uriTemplate),
        );
        return templates.filter((template) => kept.has(template.uriTemplate));
      },
    });
  }

  async read(uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    const upstream = this.owner(uri);
    return readyOrRefuse(upstream, `resource ${quoteInput(uri)}`).forward('resources/read', { uri }, signal);
  }

  /** `subscriber` (a session) watches `uri`; the upstream is asked at the first subscriber. */
  async subscribe(uri: string, subscriber: object, signal?: AbortSignal): Promise<void> {
    const upstream = this.owner(uri);
    if (upstream.offered?.subscribe !== true) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Resource ${quoteInput(uri)} can't be subscribed to: its upstream "${upstream.name}" does not offer resources/subscribe`,
      );
    }
    const entry = this.subscriptions.get(uri);
    if (entry !== undefined) {
      entry.subscribers.add(subscriber);
      return;
    }
    // Counted before the upstream answers: its first update may come before its answer does.
    const added = { server: upstream.name, subscribers: new Set<object>([subscriber]) };
    this.subscriptions.set(uri, added);
    try {
      await readyOrRefuse(upstream, `resource ${quoteInput(uri)}`).forward('resources/subscribe', { uri }, signal);
    } catch (error) {
      if (this.subscriptions.get(uri) === added) this.subscriptions.delete(uri);
      throw error;
    }
  }

  /** `subscriber` stops watching `uri`; the upstream is told when none is left. */
  async unsubscribe(uri: string, subscriber: object, signal?: AbortSignal): Promise<void> {
    const entry = this.subscriptions.get(uri);
    if (entry === undefined || !entry.subscribers.delete(subscriber) || entry.subscribers.size > 0) return;
    this.subscriptions.delete(uri);
    const session = this.upstreams.find((upstream) => upstream.name === entry.server)?.readySession();
    await session?.forward('resources/unsubscribe', { uri }, signal);
  }

  /** Whether `subscriber` watches `uri`: an upstream's `notifications/resources/updated` goes to those that do. */
  watches(uri: string, subscriber: object): boolean {
    return this.subscriptions.get(uri)?.subscribers.has(subscriber) === true;
  }

  /** A session that ended: its subscriptions go, and upstreams are told of those no one else holds. */
  forget(subscriber: object): void {
    for (const [uri, entry] of this.subscriptions) {
      if (!entry.subscribers.has(subscriber)) continue;
      void this.unsubscribe(uri, subscriber).catch((error: unknown) =>
        this.log.child(`upstream "${entry.server}"`).info(`unsubscribing from ${quoteInput(uri)} failed: ${String(error)}`),
      );
    }
  }

  /** After an upstream restarted: it is asked again to watch what our clients still watch there. */
  resubscribe(upstream: Upstream): void {
    const session = upstream.readySession();
    if (session === undefined) return;
    for (const [uri, entry] of this.subscriptions) {
      if (entry.server !== upstream.name) continue;
      void session
        .forward('resources/subscribe', { uri }, undefined)
        .catch((error: unknown) =>
          this.log.child(`upstream "${upstream.name}"`).info(`subscribing again to ${quoteInput(uri)} failed: ${String(error)}`),
        );
    }
  }

  /** The upstream a URI routes to, or the spec's "resource not found" (-32002) naming it and what to do. */
  private owner(uri: string): Upstream {
    const route = this.routes.route(uri);
    if (route === undefined || !route.allowed) {
      const why =
        route === undefined
          ? 'no upstream lists it or a resource template that matches it; resources/list and resources/templates/list name what there is'
          : `the config's "resources" policy for upstream "${route.server}" leaves it out`;
      throw new ProtocolError(ProtocolErrorCode.ResourceNotFound, `Resource not found: ${quoteInput(uri)}: ${why}`, { uri });
    }
    return this.upstreams.find((upstream) => upstream.name === route.server)!;
  }
}
