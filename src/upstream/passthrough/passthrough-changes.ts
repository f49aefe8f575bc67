/**
 * Which changes of the upstreams' states change what passes through besides tools: an upstream
 * that started or stopped serving changes the merged prompt and resource lists (its resource
 * subscriptions are asked again), and maybe what is offered at all.
 */
import type { HubNotice } from '../hub-events.js';
import type { Offered } from './passthrough.js';

/** One upstream's state as it reads it. */
export interface ServingState {
  readonly name: string;
  /** It has a ready session. */
  readonly serving: boolean;
  /** What it offered at its last start; undefined before it has started once. */
  readonly offered: Offered | undefined;
}

export interface PassthroughChange {
  /** The upstreams whose serving state changed: their subscriptions are to be asked again. */
  readonly servingChanged: readonly string[];
  readonly notices: readonly HubNotice[];
}

export class PassthroughChanges {
  /** Per upstream, whether it served and what it offered at the last change. */
  private readonly serving = new Map<string, string>();
  private lastOffered = '';

  /** After the `changed` upstreams' states changed, with what all of them offer now. */
  take(changed: readonly ServingState[], offered: Offered): PassthroughChange {
    const servingChanged: string[] = [];
    const notices: HubNotice[] = [];
    for (const upstream of changed) {
      const now = JSON.stringify([upstream.serving, upstream.offered]);
      const before = this.serving.get(upstream.name);
      if (before === now) continue;
      this.serving.set(upstream.name, now);
      servingChanged.push(upstream.name);
      if (before === undefined && upstream.offered === undefined) continue;
      // The merged resources have their own event (resources-changed), sent when they change.
      if (upstream.offered?.prompts) notices.push({ kind: 'prompts_changed' });
    }
    const offeredNow = JSON.stringify(offered);
    if (offeredNow !== this.lastOffered) {
      if (this.lastOffered !== '') notices.push({ kind: 'offered_changed' });
      this.lastOffered = offeredNow;
    }
    return { servingChanged, notices };
  }
}
