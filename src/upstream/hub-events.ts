/**
 * What the hub tells the sessions, as events on an EventTarget: the catalog changed, the merged
 * resources changed, or a notice (an upstream's prompt or resource notice, or a change in what
 * the upstreams offer). A listener that throws is logged, and the others still hear.
 */
import { setMaxListeners } from 'node:events';
import type { Log } from '../support/log.js';
import type { PassthroughNotice } from './passthrough/passthrough.js';

/** What the hub tells the sessions besides tool changes: an upstream's notice, or a change in what the upstreams offer. */
export type HubNotice = PassthroughNotice | { readonly kind: 'offered_changed' };

/** Each event's name and what its listeners are given. */
export interface HubEventMap {
  /** The catalog changed (a tools/list_changed, a restart, a late start). */
  readonly 'catalog-changed': undefined;
  /** The merged resources or templates changed (a list_changed, a start, a restart). */
  readonly 'resources-changed': undefined;
  /** The upstreams' prompt and resource notices, and a change in what they offer. */
  readonly notice: HubNotice;
}

export type HubEventName = keyof HubEventMap;

/** Listening to the hub's events: each `on` returns its unsubscribe. */
export interface HubEventSource {
  on<Name extends HubEventName>(name: Name, listener: (detail: HubEventMap[Name]) => void): () => void;
}

/** One event as dispatched: its name and what its listeners are given, as emitted (a CustomEvent would turn undefined into null). */
class HubEvent<Detail> extends Event {
  constructor(
    name: HubEventName,
    readonly detail: Detail,
  ) {
    super(name);
  }
}

export class HubEvents implements HubEventSource {
  private readonly target = new EventTarget();

  constructor(private readonly log: Log) {
    // Every connection listens (each 2025 session, each 2026-07-28 request): as many as the server
    // serves, each removed when it ends, so no count of them means a leak.
    setMaxListeners(0, this.target);
  }

  on<Name extends HubEventName>(name: Name, listener: (detail: HubEventMap[Name]) => void): () => void {
    // Node reports a listener's throw as an uncaught exception: caught here, it is logged instead.
    const handler = (event: Event): void => {
      try {
        listener((event as HubEvent<HubEventMap[Name]>).detail);
      } catch (error) {
        this.log(
          `codemode-mcp: a listener of the upstreams failed: ${error instanceof Error ? error.stack : String(error)}`,
          'error',
        );
      }
    };
    this.target.addEventListener(name, handler);
    return () => this.target.removeEventListener(name, handler);
  }

  emit<Name extends HubEventName>(name: Name, detail: HubEventMap[Name]): void {
    this.target.dispatchEvent(new HubEvent(name, detail));
  }
}
