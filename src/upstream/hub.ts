/**
 * The upstream servers as one: starts them all, names their tools as scripts see them, applies
 * the config's tool policy, and routes each call to its upstream, or refuses it before sending;
 * likewise for resources (resource-routes.ts).
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type ClientCapabilities,
  type Implementation,
  type Progress,
  type ReadResourceResult,
} from '@modelcontextprotocol/client';
import type { Catalog, CatalogTool } from '../catalog/types.js';
import { NameCollisionError, ToolRefusedError } from '../support/errors.js';
import { isAllowedBy } from '../config/tool-policy.js';
import { DEFAULT_SETTINGS, type Settings } from '../config/settings.js';
import { UpstreamAuth } from './auth/upstream-auth.js';
import { upstreamReadLimit } from './read-limit.js';
import { CallOrigins, type CallOrigin } from './call-origins.js';
import { ResourceRoutes, type ResourceRoute, type RoutedResource, type RoutedTemplate } from './resource-routes.js';
import { RELAYED_CAPABILITIES, type LogListener, type RequestRelay } from './relay.js';
import type { UpstreamSpec } from './spec.js';
import {
  TOOL_NAME_SEPARATOR,
  assignToolNames,
  describeCollision,
  scriptToolName,
  serverForName,
  type NameCollision,
} from './tool-names.js';
import { Upstream, type UpstreamStatus } from './upstream.js';
import { unionOf, type Offered, type PassthroughNotice } from './passthrough.js';
import { PromptRoutes } from './prompt-routes.js';
import { CompletionRoutes } from './completion-routes.js';
import { ResourcePassthrough } from './resource-passthrough.js';

/** What the hub tells the sessions besides tool changes: an upstream's notice, or a change in what the upstreams offer. */
export type HubNotice = PassthroughNotice | { readonly kind: 'offered_changed' };
import { logFailure, processLog, type Log } from '../support/log.js';

export interface UpstreamHubOptions {
  /** How the upstreams see us. Default `{ name: 'codemode-mcp', version: '0.0.0' }`. */
  readonly clientInfo?: Implementation;
  /** What the upstream clients declare. Default: elicitation (form, url), sampling, roots. */
  readonly capabilities?: ClientCapabilities;
  /** Where our log lines and the upstreams' stderr go, a line at a time. Default: our stderr. */
  readonly log?: Log;
  /** The settings upstream connections follow. Default: every setting's default. */
  readonly settings?: UpstreamSettings;
  /** How long a stdio upstream has to end by itself once its stdin is closed, before SIGTERM. Default GROUP_TERM_AFTER_MS. */
  readonly closeGraceMs?: number;
}

/** The settings that govern upstream connections. */
export type UpstreamSettings = Pick<
  Settings,
  'upstreamStartTimeoutMs' | 'upstreamPingIntervalMs' | 'upstreamPingTimeoutMs' | 'memoryMaxBytes'
>;

/** Per call: where the upstream's `notifications/progress` for this call go, and whose call it is. */
export interface CallContext {
  readonly onProgress?: (progress: Progress) => void;
  /** The session making the call: what the upstream asks or logs while it runs goes there (call-origins.ts). */
  readonly origin?: CallOrigin;
}

export class UpstreamHub {
  private readonly upstreams: Upstream[];
  private readonly byServer: Map<string, Upstream>;
  /** Names of the upstreams whose state changed since the catalog was last rebuilt (upstreamChanged). */
  private readonly changed = new Set<string>();
  private changeTimer: NodeJS.Immediate | undefined;
  private catalog: Catalog = [];
  private byName = new Map<string, CatalogTool>();
  private catalogKey = '[]';
  private readonly reportedCollisions = new Set<string>();
  private readonly catalogListeners = new Set<() => void>();
  private readonly routes: ResourceRoutes;
  private readonly resourceListeners = new Set<() => void>();
  private readonly origins = new CallOrigins();
  private started = false;
  private readonly log: Log;
  private readonly auth: UpstreamAuth;
  private readonly noticeListeners = new Set<(notice: HubNotice) => void>();
  /** Per upstream, whether it served and what it offered at the last change: a change there changes the merged lists. */
  private readonly serving = new Map<string, string>();
  private lastOffered = '';
  /** The upstreams' prompts, as our client lists and gets them. */
  readonly prompts: PromptRoutes;
  /** completion/complete, routed by the prompt or resource template it names. */
  readonly completions: CompletionRoutes;
  /** The upstreams' resources, as our client lists, reads and subscribes to them. */
  readonly resourcePassthrough: ResourcePassthrough;

  constructor(specs: readonly UpstreamSpec[], options: UpstreamHubOptions = {}) {
    this.log = options.log ?? processLog;
    const settings = options.settings ?? DEFAULT_SETTINGS;
    // A sign-in link is offered as an upstream request would be: to the session with calls on that upstream (call-origins.ts).
    this.auth = new UpstreamAuth({ relay: () => this.relayToOrigin, log: this.log });
    const sessionOptions = {
      auth: this.auth,
      startTimeoutMs: settings.upstreamStartTimeoutMs,
      maxMessageBytes: upstreamReadLimit(settings.memoryMaxBytes),
      pingIntervalMs: settings.upstreamPingIntervalMs,
      pingTimeoutMs: settings.upstreamPingTimeoutMs,
      clientInfo: options.clientInfo ?? { name: 'codemode-mcp', version: '0.0.0' },
      capabilities: options.capabilities ?? RELAYED_CAPABILITIES,
      relay: () => this.relayToOrigin,
      onLog: (server: string, params: Parameters<LogListener>[1]) => this.origins.routeLog(server)?.log(server, params),
      log: this.log,
      ...(options.closeGraceMs !== undefined ? { closeGraceMs: options.closeGraceMs } : {}),
    };
    const seen = new Set<string>();
    for (const { name } of specs) {
      if (seen.has(name)) throw new NameCollisionError(`two upstream servers are named "${name}"`);
      seen.add(name);
    }
    this.routes = new ResourceRoutes(
      specs.map((spec) => ({ name: spec.name, ...(spec.resourcePolicy !== undefined ? { policy: spec.resourcePolicy } : {}) })),
      this.log,
    );
    this.upstreams = specs.map(
      (spec) =>
        new Upstream(spec, sessionOptions, {
          onChange: () => this.upstreamChanged(spec.name),
          onNotice: (notice) => this.notify(this.noticeListeners, (listener) => listener(notice)),
        }),
    );
    this.byServer = new Map(this.upstreams.map((upstream) => [upstream.name, upstream]));
    this.prompts = new PromptRoutes(this.upstreams);
    this.resourcePassthrough = new ResourcePassthrough(this.upstreams, this.routes, this.log);
    this.completions = new CompletionRoutes(this.prompts, (uriTemplate) => {
      const server = this.routes.templates().find(({ template }) => template.uriTemplate === uriTemplate)?.server;
      return this.upstreams.find((upstream) => upstream.name === server);
    });
    this.auth.onSignedIn((name) => this.upstreams.find((upstream) => upstream.name === name)?.retryNow());
    // No tools yet, but a note per upstream: each is still starting.
    this.rebuildCatalog(this.upstreams);
  }

  /**
   * Connects every upstream in parallel; resolves when each is ready or failed (a failed one is
   * reported and retried in the background). Rejects only for a name collision (NameCollisionError
   * naming both tools), after closing everything.
   */
  async start(): Promise<void> {
    await Promise.all(this.upstreams.map((upstream) => upstream.start()));
    const collisions = this.rebuildCatalog(this.takeChanged());
    this.passthroughChanged(this.upstreams);
    if (collisions.length > 0) {
      await this.close();
      throw new NameCollisionError(`${collisions.map(describeCollision).join('; ')}. Rename a server in the config`);
    }
    this.started = true;
  }

  /**
   * Every known tool, denied ones included (`allowed: false`), named as scripts call them, with a
   * note for each upstream not serving its tools (down, or still starting) for the description.
   */
  tools(): Catalog {
    this.applyChanges();
    return this.catalog;
  }

  /**
   * Name prefixes of upstreams that have never listed their tools (still starting, or down since
   * start): '' for the only upstream. A script may call names under them; the call is refused.
   */
  unlistedPrefixes(): string[] {
    const prefixed = this.upstreams.length > 1;
    return this.upstreams
      .filter((upstream) => upstream.tools === undefined)
      .map((upstream) => (prefixed ? `${upstream.name}${TOOL_NAME_SEPARATOR}` : ''));
  }

  upstreamStatus(): UpstreamStatus[] {
    return this.upstreams.map((upstream) => upstream.status());
  }

  /** Called after the catalog changed (a tools/list_changed, a restart, a late start); returns an unsubscribe. */
  onCatalogChanged(listener: () => void): () => void {
    this.catalogListeners.add(listener);
    return () => this.catalogListeners.delete(listener);
  }

  /**
   * What the upstreams offer besides tools, as far as known: an upstream that has never started
   * counts as offering everything, since a capability can't be declared to a client after initialize.
   */
  offered(): Offered {
    const all: Offered = { prompts: true, resources: true, subscribe: true, completions: true };
    return unionOf(this.upstreams.map((upstream) => upstream.offered ?? all));
  }

  /** Called for the upstreams' prompt and resource notices, and when what they offer changes; returns an unsubscribe. */
  onNotice(listener: (notice: HubNotice) => void): () => void {
    this.noticeListeners.add(listener);
    return () => this.noticeListeners.delete(listener);
  }

  /**
   * The resources of every upstream, merged in config order (the first lister of a URI keeps it),
   * those the `resources` policies allow. Includes those of an upstream that is down (a read is refused as down).
   */
  resources(): readonly RoutedResource[] {
    this.applyChanges();
    return this.routes.resources();
  }

  /** The resource templates of every upstream, merged and filtered likewise. */
  resourceTemplates(): readonly RoutedTemplate[] {
    this.applyChanges();
    return this.routes.templates();
  }

  /** The upstream a URI goes to (listed exactly, else by template), denied ones included; undefined for none. */
  resourceRoute(uri: string): ResourceRoute | undefined {
    this.applyChanges();
    return this.routes.route(uri);
  }

  /** Called after the merged resources or templates changed (a list_changed, a start, a restart); returns an unsubscribe. */
  onResourcesChanged(listener: () => void): () => void {
    this.resourceListeners.add(listener);
    return () => this.resourceListeners.delete(listener);
  }

  /**
   * Reads a resource from the upstream its URI routes to, and returns the result as sent. `label`
   * names the read in errors (`resources.read("test://a")`). Rejects with ToolRefusedError when
   * nothing was sent (RESOURCE_UNKNOWN, RESOURCE_DENIED, upstream not ready), and otherwise as callTool.
   */
  async readResource(uri: string, label: string, signal?: AbortSignal, context: CallContext = {}): Promise<ReadResourceResult> {
    this.applyChanges();
    const route = this.routes.route(uri);
    if (route === undefined) {
      // An upstream that has never listed (starting, or down since start) may be the one: say so.
      const unlisted = this.upstreams
        .filter((upstream) => upstream.resources === undefined)
        .map((upstream) => `"${upstream.name}"`);
      const pending =
        unlisted.length === 0 ? '' : ` (upstream ${unlisted.join(', ')} has not listed its resources yet: starting, or down)`;
      throw new ToolRefusedError(
        'RESOURCE_UNKNOWN',
        label,
        `no upstream lists this URI or a resource template that matches it${pending}; resources.list() and resources.templates() show what can be read`,
      );
    }
    if (!route.allowed) {
      throw new ToolRefusedError(
        'RESOURCE_DENIED',
        label,
        `the config's resources policy of upstream "${route.server}" does not allow this URI`,
      );
    }
    const upstream = this.upstreams.find((candidate) => candidate.name === route.server)!;
    const session = upstream.readySession();
    if (session === undefined) throw refuseNotReady(label, upstream);
    return this.origins.track(upstream.name, context.origin, () => session.readResource(uri, label, signal));
  }

  /**
   * Who gets the upstreams' requests and log messages that no running call can claim: stdio's one
   * session. Unset (HTTP, many sessions), such a request gets a JSON-RPC error saying why.
   */
  setFallbackOrigin(origin: CallOrigin | undefined): void {
    this.origins.setFallback(origin);
  }

  /** Tells every ready upstream that our client's roots changed. */
  async notifyRootsListChanged(): Promise<void> {
    await Promise.all(
      this.upstreams.map((upstream) =>
        upstream.notifyRootsListChanged().catch(logFailure(`telling upstream "${upstream.name}" the roots changed`, this.log)),
      ),
    );
  }

  /**
   * Calls a tool by its script name and returns its result exactly as sent. Rejects with
   * ToolRefusedError when nothing was sent (unknown, denied, upstream not ready), with
   * UpstreamLostError when the upstream went away mid-call, with `signal.reason` on abort, and
   * otherwise with the SDK's error (a JSON-RPC error from the upstream).
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    context: CallContext = {},
  ): Promise<CallToolResult> {
    this.applyChanges();
    const tool = this.byName.get(name);
    if (tool === undefined) throw this.refuseUnknown(name);
    const upstream = this.upstreams.find((candidate) => candidate.name === tool.server)!;
    if (!tool.allowed) {
      throw new ToolRefusedError(
        'TOOL_DENIED',
        name,
        `the config does not allow tool "${tool.upstreamName}" of upstream "${tool.server}"`,
      );
    }
    const session = upstream.readySession();
    if (session === undefined) throw refuseNotReady(name, upstream);
    const started = Date.now();
    const call = this.origins.track(upstream.name, context.origin, () =>
      session.callTool(tool.upstreamName, name, args, signal, context.onProgress),
    );
    const debug = (how: string): void =>
      this.log(
        `codemode-mcp: upstream "${tool.server}": tools/call ${tool.upstreamName} ${how} in ${Date.now() - started} ms`,
        'debug',
      );
    call.then(
      (result) => debug(result.isError === true ? 'answered with isError' : 'answered'),
      (error: unknown) => debug(`failed (${error instanceof Error ? error.message : String(error)})`),
    );
    return call;
  }

  /** An upstream's request, relayed to the session whose call it serves (call-origins.ts), or refused. */
  private readonly relayToOrigin: RequestRelay = (server, request, options) => {
    const routed = this.origins.routeRequest(server, request);
    if ('refused' in routed) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, routed.refused);
    return routed.origin.relay(server, request, options);
  };

  /**
   * The server began to shut down: no upstream is restarted from now on, while the sessions still
   * serve the cancellations of the scripts being stopped. close() follows.
   */
  stopRestarting(): void {
    for (const upstream of this.upstreams) upstream.stopRestarting();
  }

  /** Stops all restarts and closes every upstream; when it resolves, no upstream process is left. */
  async close(): Promise<void> {
    this.auth.close();
    await Promise.all(this.upstreams.map((upstream) => upstream.close()));
  }

  /**
   * A name no listed tool has. If it belongs to an upstream that has never listed its tools (still
   * starting, or down since start), say that, rather than that no such tool exists.
   */
  private refuseUnknown(name: string): ToolRefusedError {
    const server = serverForName(
      name,
      this.upstreams.map((upstream) => upstream.name),
    );
    const upstream = this.upstreams.find((candidate) => candidate.name === server);
    if (upstream !== undefined && upstream.tools === undefined) return refuseNotReady(name, upstream);
    return new ToolRefusedError('TOOL_UNKNOWN', name, 'no upstream tool has this name');
  }

  /**
   * An upstream's state changed. The catalog is rebuilt once for every change that arrives before
   * the next turn of the event loop, or before anything reads it: upstreams that start or fail
   * together (hundreds at once at start) cost one rebuild over all of them, not one each.
   */
  private upstreamChanged(name: string): void {
    this.changed.add(name);
    if (this.changeTimer !== undefined) return;
    this.changeTimer = setImmediate(() => this.applyChanges());
  }

  /** Applies the changes noted since the last rebuild (none: nothing to do). */
  private applyChanges(): void {
    if (this.changed.size === 0) return;
    const changed = this.takeChanged();
    this.rebuildCatalog(changed);
    this.passthroughChanged(changed);
  }

  /** The upstreams changed since the last rebuild, forgotten as changed. */
  private takeChanged(): Upstream[] {
    clearImmediate(this.changeTimer);
    this.changeTimer = undefined;
    const changed = [...this.changed].map((name) => this.byServer.get(name)!);
    this.changed.clear();
    return changed;
  }

  /**
   * Recomputes names and policy, and the resource routes of the `changed` upstreams; tells listeners
   * when anything changed. Returns the collisions.
   */
  private rebuildCatalog(changed: readonly Upstream[]): NameCollision[] {
    const resourcesChanged = this.routes.updateAll(changed.map((upstream) => [upstream.name, upstream.resources]));
    if (resourcesChanged) this.notify(this.resourceListeners, (listener) => listener());
    const prefixed = this.upstreams.length > 1;
    const claims = this.upstreams.flatMap((upstream) =>
      (upstream.tools ?? []).map((tool) => ({ server: upstream.name, tool: tool.name, definition: tool })),
    );
    // After start, a name scripts already use keeps its tool: a newcomer that collides is left out.
    // During start, config order decides, so start()'s error doesn't depend on who answered first.
    const established = (claim: (typeof claims)[number]): boolean => {
      const known = this.started ? this.byName.get(scriptToolName(prefixed, claim)) : undefined;
      return known?.server === claim.server && known.upstreamName === claim.tool;
    };
    const { names, collisions } = assignToolNames(prefixed, [
      ...claims.filter(established),
      ...claims.filter((claim) => !established(claim)),
    ]);
    const catalog: CatalogTool[] = [];
    for (const claim of claims) {
      const name = scriptToolName(prefixed, claim);
      if (names.get(name) !== claim) continue;
      const { definition } = claim;
      const upstream = this.byServer.get(claim.server)!;
      catalog.push({
        name,
        server: claim.server,
        upstreamName: claim.tool,
        description: definition.description ?? '',
        inputSchema: definition.inputSchema,
        ...(definition.outputSchema !== undefined ? { outputSchema: definition.outputSchema } : {}),
        ...(definition.title !== undefined ? { title: definition.title } : {}),
        ...(definition.annotations !== undefined ? { annotations: definition.annotations } : {}),
        ...(definition.note !== undefined ? { note: definition.note } : {}),
        allowed: isAllowedBy(upstream.spec.policy, claim.tool),
      });
    }
    // At start a collision is start()'s error; later (a late start, a list_changed) it is logged.
    for (const collision of this.started ? collisions : []) {
      const text = describeCollision(collision);
      if (this.reportedCollisions.has(text)) continue;
      this.reportedCollisions.add(text);
      this.log(`codemode-mcp: NAME_COLLISION: ${text}; scripts get the first and can't call the second`, 'warn');
    }
    const upstreamNotes = this.upstreams.flatMap((upstream) => {
      const note = upstream.note();
      return note === undefined ? [] : [note];
    });
    const resourcesOffered = this.routes.offered;
    const key = JSON.stringify([catalog, upstreamNotes, resourcesOffered]);
    if (key !== this.catalogKey) {
      // Not enumerable: the catalog compares, copies and serialises as its tools alone.
      this.catalog = Object.defineProperties(catalog, {
        upstreamNotes: { value: upstreamNotes, enumerable: false },
        resourcesOffered: { value: resourcesOffered, enumerable: false },
      });
      this.byName = new Map(catalog.map((tool) => [tool.name, tool]));
      this.catalogKey = key;
      this.notify(this.catalogListeners, (listener) => listener());
    }
    return collisions;
  }

  /**
   * After an upstream's state changed: an upstream that started or stopped serving changes the
   * merged prompt and resource lists, and maybe what is offered at all.
   */
  private passthroughChanged(changed: readonly Upstream[]): void {
    const notices: HubNotice[] = [];
    for (const upstream of changed) {
      const now = JSON.stringify([upstream.readySession() !== undefined, upstream.offered]);
      if (this.serving.get(upstream.name) === now) continue;
      const before = this.serving.get(upstream.name);
      this.serving.set(upstream.name, now);
      this.resourcePassthrough.resubscribe(upstream);
      if (before === undefined && upstream.offered === undefined) continue;
      // The merged resources have their own listeners (onResourcesChanged), told when they change.
      if (upstream.offered?.prompts) notices.push({ kind: 'prompts_changed' });
    }
    const offered = JSON.stringify(this.offered());
    if (offered !== this.lastOffered) {
      if (this.lastOffered !== '') notices.push({ kind: 'offered_changed' });
      this.lastOffered = offered;
    }
    for (const notice of notices) this.notify(this.noticeListeners, (listener) => listener(notice));
  }

  /** A listener that throws is logged, and the others still hear. */
  private notify<Listener>(listeners: Set<Listener>, call: (listener: Listener) => void): void {
    for (const listener of listeners) {
      try {
        call(listener);
      } catch (error) {
        this.log(
          `codemode-mcp: a listener of the upstreams failed: ${error instanceof Error ? error.stack : String(error)}`,
          'error',
        );
      }
    }
  }
}

function refuseNotReady(name: string, upstream: Upstream): ToolRefusedError {
  const state = upstream.describeState();
  switch (upstream.state) {
    case 'connecting':
      return new ToolRefusedError(
        'UPSTREAM_CONNECTING',
        name,
        upstream.reason === undefined
          ? `upstream "${upstream.name}" is still starting`
          : `upstream "${upstream.name}" is restarting (${state})`,
      );
    case 'down':
      return new ToolRefusedError('UPSTREAM_DOWN', name, `upstream "${upstream.name}" is down: ${state}`);
    default:
      return new ToolRefusedError(
        'UPSTREAM_DOWN',
        name,
        `upstream "${upstream.name}" is ${upstream.state === 'closed' ? 'closed' : 'not ready'}`,
      );
  }
}
