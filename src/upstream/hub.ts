/**
 * The upstream servers as one: starts them all and keeps the catalog of their tools current
 * (built by build-catalog.ts once per batch of changes), and hands calls to the routes: tools and
 * resource reads (call-routes.ts), prompts, completions and resources passed through. What changed
 * is told as events (hub-events.ts).
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type ClientCapabilities,
  type Implementation,
  type ReadResourceResult,
} from '@modelcontextprotocol/client';
import type { Catalog } from '../catalog/types.js';
import { NameCollisionError } from '../support/errors.js';
import { DEFAULT_SETTINGS, type Settings } from '../config/settings.js';
import { UpstreamAuth } from './auth/upstream-auth.js';
import { buildCatalog } from './tools/build-catalog.js';
import { CallOrigins, type CallOrigin } from './routing/call-origins.js';
import { CallRoutes, type CallContext } from './routing/call-routes.js';
import { HubEvents, type HubEventSource } from './hub-events.js';
import { PassthroughChanges } from './passthrough/passthrough-changes.js';
import { upstreamReadLimit } from './transport/read-limit.js';
import { ResourceRoutes, type ResourceRoute, type RoutedResource, type RoutedTemplate } from './passthrough/resource-routes.js';
import type { UpstreamInputRequired, UpstreamRound } from './routing/round-trip.js';
import type { UpstreamTask } from './routing/task-answer.js';
import { RELAYED_CAPABILITIES, type LogListener, type RequestRelay } from './routing/relay.js';
import type { UpstreamSpec } from './spec.js';
import type { Connector } from './transport/connect-upstream.js';
import { describeCollision, type NameCollision } from './tools/tool-names.js';
import { Upstream, type UpstreamStatus } from './connection/upstream.js';
import { unionOf, type Offered } from './passthrough/passthrough.js';
import { SkillRoutes } from './passthrough/skill-routes.js';
import { PromptRoutes } from './passthrough/prompt-routes.js';
import { CompletionRoutes } from './passthrough/completion-routes.js';
import { ResourcePassthrough } from './passthrough/resource-passthrough.js';
import { logFailure, Logger, processLog, type Log } from '../support/log.js';
import { observeUpstreamCall } from '../telemetry/observe-call.js';
import { LiveGroups } from '../support/process-group.js';

export type { HubNotice } from './hub-events.js';

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
  /** How each entry is connected. Default connectUpstream: its transport as configured (tests link in-memory pairs). */
  readonly connect?: Connector;
  /**
   * Where its stdio upstreams' process groups are kept until they have ended. Default: its own. A
   * caller gives the groups that its shutdown or signals already watch: the early start's over stdio, a command's EndSignals'.
   */
  readonly processGroups?: LiveGroups;
}

/** The settings that govern upstream connections. */
export type UpstreamSettings = Pick<
  Settings,
  'upstreamStartTimeoutMs' | 'upstreamPingIntervalMs' | 'upstreamPingTimeoutMs' | 'memoryMaxBytes'
> &
  Partial<Pick<Settings, 'approvals'>>;

export class UpstreamHub {
  /** The catalog changed, the merged resources changed, a notice (hub-events.ts). */
  readonly events: HubEventSource;
  /** The upstreams' prompts, as our client lists and gets them. */
  readonly prompts: PromptRoutes;
  /** The upstreams' skills (the MCP Skills extension), passed on beside our own. */
  readonly skills: SkillRoutes;
  /** completion/complete, routed by the prompt or resource template it names. */
  readonly completions: CompletionRoutes;
  /** The upstreams' resources, as our client lists, reads and subscribes to them. */
  readonly resourcePassthrough: ResourcePassthrough;
  /** Its stdio upstreams' process groups not yet ended: what its shutdown sweeps (process-tree.ts), no other hub's. */
  readonly processGroups: LiveGroups;
  private readonly upstreams: Upstream[];
  private readonly byServer: Map<string, Upstream>;
  /** Names of the upstreams whose state changed since the catalog was last rebuilt (upstreamChanged). */
  private readonly changed = new Set<string>();
  private changeTimer: NodeJS.Immediate | undefined;
  private built: Catalog = { tools: [], upstreamNotes: [], resourcesOffered: false };
  private catalogKey = '';
  private readonly reportedCollisions = new Set<string>();
  private readonly routes: ResourceRoutes;
  private readonly calls: CallRoutes;
  private readonly origins = new CallOrigins();
  private readonly emitter: HubEvents;
  private readonly passthroughChanges = new PassthroughChanges();
  private started = false;
  private readonly log: Log;
  private readonly auth: UpstreamAuth;
  /** `settings.approvals`, over script names. */
  private readonly approvals: Settings['approvals'] | undefined;

  constructor(specs: readonly UpstreamSpec[], options: UpstreamHubOptions = {}) {
    this.log = options.log ?? processLog;
    this.processGroups = options.processGroups ?? new LiveGroups();
    this.emitter = new HubEvents(this.log);
    this.events = this.emitter;
    const settings = options.settings ?? DEFAULT_SETTINGS;
    this.approvals = settings.approvals;
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
      processGroups: this.processGroups,
      ...(options.closeGraceMs !== undefined ? { closeGraceMs: options.closeGraceMs } : {}),
      ...(options.connect !== undefined ? { connect: options.connect } : {}),
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
          onNotice: (notice) => this.emitter.emit('notice', notice),
        }),
    );
    this.byServer = new Map(this.upstreams.map((upstream) => [upstream.name, upstream]));
    this.calls = new CallRoutes(this.upstreams, this.routes, this.origins, this.log);
    this.prompts = new PromptRoutes(this.upstreams);
    this.skills = new SkillRoutes(this.upstreams, this.log);
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
  catalog(): Catalog {
    this.applyChanges();
    return this.built;
  }

  /**
   * Name prefixes of upstreams that have never listed their tools (still starting, or down since
   * start): '' for the only upstream. A script may call names under them; the call is refused.
   */
  unlistedPrefixes(): string[] {
    return this.calls.unlistedPrefixes();
  }

  upstreamStatus(): UpstreamStatus[] {
    return this.upstreams.map((upstream) => upstream.status());
  }

  /**
   * What the upstreams offer besides tools, as far as known: an upstream that has never started
   * counts as offering everything, since a capability can't be declared to a client after initialize.
   */
  offered(): Offered {
    const all: Offered = { prompts: true, resources: true, subscribe: true, completions: true };
    return unionOf(this.upstreams.map((upstream) => upstream.offered ?? all));
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

  /**
   * Reads a resource from the upstream its URI routes to, and returns the result as sent. `label`
   * names the read in errors (`resources.read("test://a")`). Rejects with ToolRefusedError when
   * nothing was sent (RESOURCE_UNKNOWN, RESOURCE_DENIED, upstream not ready), and otherwise as callTool.
   */
  async readResource(uri: string, label: string, signal?: AbortSignal, context: CallContext = {}): Promise<ReadResourceResult> {
    this.applyChanges();
    return this.calls.readResource(uri, label, signal, context);
  }

  /**
   * Calls a tool by its script name and returns its result exactly as sent. Rejects with
   * ToolRefusedError when nothing was sent (unknown, denied, upstream not ready), with
   * UpstreamLostError when the upstream went away mid-call, with `signal.reason` on abort, and
   * otherwise with the SDK's error (a JSON-RPC error from the upstream). Each call is a client
   * span when telemetry is on, and a line of the audit log when it is a script's (src/telemetry/).
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    context: CallContext = {},
  ): Promise<CallToolResult> {
    return this.observed(name, args, context, (sent) => this.calls.callTool(name, args, signal, sent));
  }

  /**
   * One round of a 2026-07-28 client's call of an exposed tool whose upstream speaks that revision
   * (round-trip.ts): as callTool, but the upstream's `input_required` is the answer, as it sent it.
   */
  async callToolRound(
    name: string,
    args: Record<string, unknown>,
    round: UpstreamRound,
    signal?: AbortSignal,
    context: CallContext = {},
  ): Promise<CallToolResult | UpstreamInputRequired | UpstreamTask> {
    return this.observed(name, args, context, (sent) => this.calls.callToolRound(name, args, round, signal, sent));
  }

  /**
   * A task the tool's upstream answered a round with (callToolRound with `round.tasks`), followed
   * until it ends (upstream-task.ts): its result, or its error thrown, as callTool's; `signal`'s
   * abort cancels it upstream. The round that made it was the call, as telemetry and the audit log see it.
   */
  async followTask(name: string, task: UpstreamTask, signal?: AbortSignal, context: CallContext = {}): Promise<CallToolResult> {
    this.applyChanges();
    return this.calls.followTask(name, task, signal, context);
  }

  /** Whether the tool's upstream is up and speaks 2026-07-28, so that its own input_required can pass through. */
  speaksCurrentRevision(name: string): boolean {
    this.applyChanges();
    return this.calls.speaksCurrentRevision(name);
  }

  /** Whether the tool's upstream is up and makes tasks itself: a round passed through may declare the Tasks extension. */
  makesTasks(name: string): boolean {
    this.applyChanges();
    return this.calls.makesTasks(name);
  }

  /** A call as telemetry and the audit log see it (observe-call.ts). */
  private observed<T extends object>(
    name: string,
    args: Record<string, unknown>,
    context: CallContext,
    send: (context: CallContext) => Promise<T>,
  ): Promise<T> {
    this.applyChanges();
    const tool = this.calls.toolNamed(name);
    const call = { scriptName: name, tool: tool?.upstreamName ?? name, ...(tool !== undefined ? { upstream: tool.server } : {}) };
    return observeUpstreamCall(call, args, context.caller, (meta) => send(meta === undefined ? context : { ...context, meta }));
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

  /** An upstream's request, relayed to the session whose call it serves (call-origins.ts), or refused. */
  private readonly relayToOrigin: RequestRelay = (server, request, options) => {
    const routed = this.origins.routeRequest(server, request);
    if ('refused' in routed) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, routed.refused);
    return routed.origin.relay(server, request, { ...options, candidates: routed.candidates });
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
   * Rebuilds the catalog, and the resource routes of the `changed` upstreams; tells listeners when
   * either changed. Returns the collisions.
   */
  private rebuildCatalog(changed: readonly Upstream[]): readonly NameCollision[] {
    const resourcesChanged = this.routes.updateAll(changed.map((upstream) => [upstream.name, upstream.resources]));
    if (resourcesChanged) this.emitter.emit('resources-changed', undefined);
    const { catalog, collisions } = buildCatalog({
      upstreams: this.upstreams.map((upstream) => ({
        name: upstream.name,
        policy: upstream.spec.policy,
        ...(upstream.spec.approvals !== undefined ? { approvals: upstream.spec.approvals } : {}),
        tools: upstream.tools,
        note: upstream.note(),
      })),
      ...(this.started ? { established: this.built } : {}),
      resourcesOffered: this.routes.offered,
      ...(this.approvals !== undefined ? { approvals: this.approvals } : {}),
    });
    // At start a collision is start()'s error; later (a late start, a list_changed) it is logged.
    for (const collision of this.started ? collisions : []) {
      const text = describeCollision(collision);
      if (this.reportedCollisions.has(text)) continue;
      this.reportedCollisions.add(text);
      Logger.of(this.log).warn(`NAME_COLLISION: ${text}; scripts get the first and can't call the second`);
    }
    const key = JSON.stringify(catalog);
    if (key !== this.catalogKey) {
      this.built = catalog;
      this.calls.setCatalog(catalog);
      this.catalogKey = key;
      this.emitter.emit('catalog-changed', undefined);
    }
    return collisions;
  }

  /** After the `changed` upstreams' states changed: their subscriptions asked again, and the notices sent. */
  private passthroughChanged(changed: readonly Upstream[]): void {
    const { servingChanged, notices } = this.passthroughChanges.take(
      changed.map((upstream) => ({
        name: upstream.name,
        serving: upstream.readySession() !== undefined,
        offered: upstream.offered,
      })),
      this.offered(),
    );
    for (const name of servingChanged) this.resourcePassthrough.resubscribe(this.byServer.get(name)!);
    for (const notice of notices) this.emitter.emit('notice', notice);
  }
}
