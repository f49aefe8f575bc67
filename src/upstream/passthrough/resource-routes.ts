/**
 * The one place that knows which upstream a resource belongs to: the resources and resource
 * templates of every upstream merged into one list each, filtered by each entry's `resources`
 * policy, and the lookup of the upstream that serves a URI.
 *
 * Merging: upstreams in config order, each in the order it listed. When two upstreams list the same
 * URI (or the same URI template), the first in config order keeps it and a log line names both.
 * Lookup: an exact listed URI first (across all upstreams), then the first template that matches.
 */
import {
  UriTemplate,
  type Client,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
} from '@modelcontextprotocol/client';
import { isAllowedBy } from '../../config/tool-policy.js';
import type { ToolPolicy } from '../spec.js';
import { Logger, type Log } from '../../support/log.js';

/** One upstream's resources as it last listed them (every page). */
export interface ResourceListing {
  readonly resources: readonly Resource[];
  readonly templates: readonly ResourceTemplate[];
}

/** A resource in the merged list, with the upstream that listed it. URIs stay as the upstream wrote them. */
export interface RoutedResource {
  readonly server: string;
  readonly resource: Resource;
}

/** A resource template in the merged list, with the upstream that listed it. */
export interface RoutedTemplate {
  readonly server: string;
  readonly template: ResourceTemplate;
}

/**
 * Where a URI goes: the upstream that listed it (`via: 'listed'`) or listed a template that
 * matches it (`via: 'template'`, with the template). `allowed`: the entry's `resources` policy
 * allows this URI; a denied one is routed all the same, so a read is refused as denied, not unknown.
 */
export interface ResourceRoute {
  readonly server: string;
  readonly via: 'listed' | 'template';
  readonly template?: string;
  readonly allowed: boolean;
}

/** An upstream as the routes see it: its name (config order is the order given) and its `resources` policy. */
export interface ResourceSource {
  readonly name: string;
  /** Globs over URIs (a template's listing: over its `uriTemplate`); absent: every resource. */
  readonly policy?: ToolPolicy;
}

/**
 * Every page of `resources/list` and `resources/templates/list`. The SDK's no-cursor
 * `listResources()` follows `nextCursor` itself (up to its `listMaxPages`, 64, then throws), so
 * pagination is not redone here. An upstream without the `resources` capability lists none.
 */
export async function listResourcePages(
  client: Client,
  options: { readonly timeoutMs: number; readonly signal?: AbortSignal },
): Promise<ResourceListing> {
  if (!client.getServerCapabilities()?.resources) return { resources: [], templates: [] };
  const request = {
    timeout: options.timeoutMs,
    cacheMode: 'bypass' as const,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const { resources } = await client.listResources(undefined, request);
  const { resourceTemplates } = await client.listResourceTemplates(undefined, request);
  return { resources, templates: resourceTemplates };
}

interface TemplateEntry {
  readonly server: string;
  readonly template: ResourceTemplate;
  /** Undefined when the SDK can't parse the template: it is listed, but routes nothing. */
  readonly matcher: UriTemplate | undefined;
  readonly allowed: boolean;
}

export class ResourceRoutes {
  private readonly listings = new Map<string, ResourceListing>();
  private merged: RoutedResource[] = [];
  private mergedTemplates: RoutedTemplate[] = [];
  /** Every listed URI, denied ones included, to its first lister. */
  private byUri = new Map<string, RoutedResource & { readonly allowed: boolean }>();
  private templateEntries: TemplateEntry[] = [];
  private readonly reported = new Set<string>();
  private readonly log: Logger;
  private key = '';

  constructor(
    private readonly sources: readonly ResourceSource[],
    log: Log,
  ) {
    this.log = Logger.of(log);
  }

  /**
   * Replaces one upstream's listing (undefined: it has listed none, or has none). Returns true when
   * the merged lists changed (for `notifications/resources/list_changed`).
   */
  update(server: string, listing: ResourceListing | undefined): boolean {
    return this.updateAll([[server, listing]]);
  }

  /** Replaces several upstreams' listings at once, as `update` does one. */
  updateAll(listings: Iterable<readonly [server: string, listing: ResourceListing | undefined]>): boolean {
    let changed = false;
    for (const [server, listing] of listings) {
      if (this.listings.get(server) === listing) continue;
      changed = true;
      if (listing === undefined) this.listings.delete(server);
      else this.listings.set(server, listing);
    }
    // One rebuild for every listing given: the merge is over all upstreams.
    return changed && this.rebuild();
  }

  /** The merged resources a client or script may see: allowed by policy, first lister of each URI. */
  resources(): readonly RoutedResource[] {
    return this.merged;
  }

  /** The merged resource templates a client or script may see, likewise. */
  templates(): readonly RoutedTemplate[] {
    return this.mergedTemplates;
  }

  /** True when at least one upstream offers a resource or a template the policy allows. */
  get offered(): boolean {
    return this.merged.length > 0 || this.mergedTemplates.length > 0;
  }

  /**
   * The upstream for `uri`: an exact listed URI first, then the first template that matches, in
   * config order. Matching is the SDK's `UriTemplate.match` (RFC 6570 `{var}`, and the `{+var}`,
   * `{/var}`, `{?var}` forms; a plain `{var}` matches no `/`). Undefined when nothing routes it.
   */
  route(uri: string): ResourceRoute | undefined {
    const listed = this.byUri.get(uri);
    if (listed !== undefined) return { server: listed.server, via: 'listed', allowed: listed.allowed };
    for (const entry of this.templateEntries) {
      if (!matches(entry.matcher, uri)) continue;
      const policy = this.policyOf(entry.server);
      return {
        server: entry.server,
        via: 'template',
        template: entry.template.uriTemplate,
        allowed: entry.allowed && (policy === undefined || isAllowedBy(policy, uri)),
      };
    }
    return undefined;
  }

  private policyOf(server: string): ToolPolicy | undefined {
    return this.sources.find((source) => source.name === server)?.policy;
  }

  private rebuild(): boolean {
    const byUri = new Map<string, RoutedResource & { readonly allowed: boolean }>();
    const byTemplate = new Map<string, TemplateEntry>();
    for (const { name: server, policy } of this.sources) {
      const listing = this.listings.get(server);
      if (listing === undefined) continue;
      const allows = (text: string): boolean => policy === undefined || isAllowedBy(policy, text);
      for (const resource of listing.resources) {
        const first = byUri.get(resource.uri);
        if (first === undefined) byUri.set(resource.uri, { server, resource, allowed: allows(resource.uri) });
        else this.reportDuplicate('resource', resource.uri, first.server, server);
      }
      for (const template of listing.templates) {
        const first = byTemplate.get(template.uriTemplate);
        if (first !== undefined) {
          this.reportDuplicate('resource template', template.uriTemplate, first.server, server);
          continue;
        }
        byTemplate.set(template.uriTemplate, {
          server,
          template,
          matcher: this.parseTemplate(server, template.uriTemplate),
          allowed: allows(template.uriTemplate),
        });
      }
    }
    const merged = [...byUri.values()].filter((entry) => entry.allowed).map(({ server, resource }) => ({ server, resource }));
    const templateEntries = [...byTemplate.values()];
    const mergedTemplates = templateEntries
      .filter((entry) => entry.allowed)
      .map(({ server, template }) => ({ server, template }));
    const key = JSON.stringify([merged, mergedTemplates]);
    this.byUri = byUri;
    this.templateEntries = templateEntries;
    if (key === this.key) return false;
    this.key = key;
    this.merged = merged;
    this.mergedTemplates = mergedTemplates;
    return true;
  }

  /** Once per pair and URI, so a re-listing doesn't repeat it. */
  private reportDuplicate(what: string, uri: string, first: string, second: string): void {
    const text = `${what} ${JSON.stringify(uri)} is listed by upstream "${first}" and upstream "${second}"`;
    if (this.reported.has(text)) return;
    this.reported.add(text);
    this.log.info(`${text}; reads go to "${first}", the first in the config`);
  }

  private parseTemplate(server: string, uriTemplate: string): UriTemplate | undefined {
    try {
      return new UriTemplate(uriTemplate);
    } catch (error) {
      const text = `upstream "${server}": resource template ${JSON.stringify(uriTemplate)} can't be parsed (${String(error)})`;
      if (!this.reported.has(text)) {
        this.reported.add(text);
        this.log.info(`${text}; it is listed, but no URI is read through it`);
      }
      return undefined;
    }
  }
}

/** The SDK's match throws past its length caps (1,000,000 characters): such a URI matches nothing. */
function matches(matcher: UriTemplate | undefined, uri: string): boolean {
  if (matcher === undefined) return false;
  try {
    return matcher.match(uri) !== null;
  } catch {
    return false;
  }
}
