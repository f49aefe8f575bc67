/**
 * One MCP connection with one client: over stdio (either protocol revision: the SDK's serveStdio
 * pins the connection to the one its client opened with), or a 2025 session over HTTP. It serves
 * the surface (server-surface.ts) with its own scripts, and carries what flows between the client
 * and the upstreams outside a request: list changes, logging, relayed requests, roots changes.
 */
import {
  type LoggingMessageNotification,
  type RequestId,
  type Server,
  type ServerContext,
  type Transport,
} from '@modelcontextprotocol/server';
import type { SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import type { Offered } from '../upstream/passthrough/passthrough.js';
import type { HubNotice } from '../upstream/hub.js';
import type { ChildSupply } from '../scripts/child-supply.js';
import type { Settings } from '../config/settings.js';
import type { Principal } from '../state/state-store.js';
import type { CallOrigin } from '../upstream/routing/call-origins.js';
import type { UpstreamHub } from '../upstream/hub.js';
import { clientCanAnswer, relayToClient } from './relay-to-client.js';
import { logFailure, Logger, type Log } from '../support/log.js';
import { buildSurface } from './server-surface.js';
import { callTool } from './tool-calls.js';
import type { ToolCallAnswer } from './tool-answer.js';
import { ScriptOwner } from './script-owner.js';
import { InputRequiredCaller } from './input-required-caller.js';
import { CallerTasks } from './caller-tasks.js';
import { requestStateCodec } from './request-state.js';
import type { TraceContext } from '../telemetry/telemetry.js';
import { LOCAL_PRINCIPAL } from '../state/state-store.js';
import type { HostApis } from './host-apis.js';
import type { ApprovalPage } from '../approvals/page/approval-page.js';
import type { ListingWatch, ToolListing } from './tool-listing.js';
import { callCodeExecution } from './code-execution/call.js';
import { refusalAnswer } from './code-execution/answer.js';
import { InFlight } from '../support/in-flight.js';
import { withTokens } from './tokens/origin-tokens.js';
import type { ScopeTokens } from '../tokenize/tokenizer.js';

/**
 * The protocol revision a connection speaks: `2025` (the 2025 revisions: `initialize`, a session,
 * server-to-client requests) or `2026-07-28` (no session: each request states what it needs, and
 * the server asks the client by answering `input_required`).
 */
export type Revision = '2025' | '2026-07-28';

export interface ClientSessionOptions {
  readonly hub: UpstreamHub;
  /** The server's script children, once started; asked for at the first code_execution call. */
  readonly supply: () => ChildSupply | undefined;
  readonly settings: Settings;
  readonly version: string;
  /** Settles when requests may be answered: the upstreams have started, or the startup wait is over. */
  readonly startup: () => Promise<void>;
  /** Our stderr, a line at a time. */
  readonly log: Log;
  /**
   * The revision the connection speaks; 2026-07-28 over stdio only (over HTTP each such request
   * is served on its own: sessionless.ts).
   */
  readonly revision: Revision;
  /**
   * The server's only connection (stdio): it gets the upstreams' requests and logs that no running
   * call claims (2025 only: a 2026 client can be asked only within a call), and its roots changes
   * are passed to the upstreams. Over HTTP, sessions share the upstreams, so neither happens
   * (docs/deploy.md, "Sessions over HTTP").
   */
  readonly sole: boolean;
  /** Names the session in messages; over HTTP its id. */
  readonly label: string;
  /** Over HTTP: whether the client holds its GET stream open, the only way to reach it outside a call. */
  readonly streamOpen?: () => boolean;
  /** Every host API a script reaches (host-apis.ts), bound to this session's scripts. */
  readonly apis: HostApis;
  /** Whose state this session's scripts read and write. */
  readonly principal: Principal;
  /** The server's tools as listed (tool-listing.ts). */
  readonly listing: ToolListing;
  /** The saved skills, served through the MCP Skills extension (skills/list, skills/get, skill:// resources). */
  readonly skills?: SkillsExtension;
  /** Over HTTP: the server's --instance-id, which starts every script id (src/scripts/script-ids.ts). */
  readonly instance?: string;
  /** The approval page (issue 46): the stdio listener's, or a route of the HTTP server. */
  readonly approvalPage?: ApprovalPage;
}

export class ClientSession {
  readonly server: Server;
  private readonly owner: ScriptOwner;
  /** A 2026-07-28 connection's way back to its client; undefined on a 2025 one. */
  private readonly asking: InputRequiredCaller | undefined;
  /** A 2026-07-28 connection's scripts as MCP tasks, for a client that declares the extension. */
  private readonly tasks: CallerTasks | undefined;
  private readonly codec = requestStateCodec(() => LOCAL_PRINCIPAL);
  /** The tools as this client last listed them, and the word when they change. */
  private readonly listed: ListingWatch;
  /** What the upstreams offered when the session began: the capabilities the client was told of. */
  private readonly declared: Offered;
  private readonly unsubscribe: Array<() => void> = [];
  private closing: Promise<string[]> | undefined;
  /** Ids of the client's tool calls not yet answered, oldest first. */
  private readonly openCalls = new Set<RequestId>();
  /** Every tool call not yet answered: the close waits for their answers (an open wait's ending). */
  private readonly answering = new InFlight();
  /** This session, as the upstreams' requests and logs reach it. */
  readonly origin: CallOrigin;
  /** Its principal's tokens, when tokenize is on: a run's code has them put back. */
  private readonly tokens: ScopeTokens | undefined;

  constructor(private readonly options: ClientSessionOptions) {
    const { hub } = options;
    const tokens = options.apis.tokensFor(options.principal);
    this.declared = hub.offered();
    this.asking = options.revision === '2026-07-28' ? new InputRequiredCaller(options.label) : undefined;
    this.tasks =
      this.asking === undefined
        ? undefined
        : new CallerTasks({
            inputs: this.asking.inputs,
            scriptLifetimeMs: options.settings.scriptLifetimeMs,
            resultsMaxBytes: options.settings.taskResultsMaxBytes,
            ...(options.instance !== undefined ? { instance: options.instance } : {}),
          });
    const surface = buildSurface({
      hub,
      version: options.version,
      declared: this.declared,
      startup: options.startup,
      ...(options.skills !== undefined ? { skills: options.skills } : {}),
      listTools: () => this.listed.list(),
      callTool: (name, args, ctx, trace) => this.answering.track(() => this.callTool(name, args, ctx, trace)),
      requestState: { verify: (state, ctx) => this.codec.verify(state, ctx) },
      ...(this.asking !== undefined ? { passThrough: this.codec } : {}),
      ...(this.tasks !== undefined ? { tasks: () => (this.closing === undefined ? this.tasks : undefined) } : {}),
      ...(tokens !== undefined ? { tokens } : {}),
    });
    this.server = surface.server;
    this.listed = options.listing.watch(() => this.toolsChanged());
    this.unsubscribe.push(() => this.listed.close());
    this.serveSubscriptions();
    if (options.sole) this.server.setNotificationHandler('notifications/roots/list_changed', () => hub.notifyRootsListChanged());
    this.server.onerror = (error) => Logger.of(options.log).warn(error.message);

    this.origin = withTokens(this.asking?.origin ?? this.requestingOrigin(), tokens);
    this.tokens = tokens;
    if (options.sole && this.asking === undefined) {
      hub.setFallbackOrigin(this.origin);
      this.unsubscribe.push(() => hub.setFallbackOrigin(undefined));
    }
    this.owner = new ScriptOwner({
      hub,
      settings: options.settings,
      supply: options.supply,
      apis: options.apis,
      principal: options.principal,
      savedSkills: () => options.listing.savedSkillsNow(),
      origin: this.origin,
      ...(options.instance !== undefined ? { instance: options.instance } : {}),
      log: options.log,
      sendLog: (params) => this.sendLog(params),
      ...(options.approvalPage !== undefined ? { approvalPage: options.approvalPage } : {}),
      // 2025 only: 2026-07-28 has no such notification (the client's retried call is the answer).
      ...(this.asking === undefined
        ? {
            completeElicitation: (id: string) => {
              const related = [...this.openCalls].at(-1);
              return this.server.createElicitationCompletionNotifier(
                id,
                related !== undefined ? { relatedRequestId: related } : {},
              )();
            },
          }
        : {}),
    });
    this.unsubscribe.push(hub.events.on('notice', (notice) => this.relayNotice(notice)));
    if (this.declared.resources) {
      this.unsubscribe.push(hub.events.on('resources-changed', () => this.relayNotice({ kind: 'resources_changed' })));
    }
  }

  /** A 2025 client is asked by server-to-client requests, on the stream of a call still open over HTTP. */
  private requestingOrigin(): CallOrigin {
    const initialized = new Promise<void>((resolve) => (this.server.oninitialized = resolve));
    return {
      label: this.options.label,
      relay: relayToClient(this.server, initialized, {
        session: this.options.label,
        relatedRequest: () => [...this.openCalls].at(-1),
        ...(this.options.streamOpen !== undefined ? { streamOpen: this.options.streamOpen } : {}),
      }),
      accepts: (request) => clientCanAnswer(this.server.getClientCapabilities(), request),
      log: (upstream, params) =>
        this.sendLog({ ...params, logger: params.logger === undefined ? upstream : `${upstream}/${params.logger}` }),
    };
  }

  /** resources/subscribe and unsubscribe: a 2025 session's own (2026-07-28 has subscriptions/listen instead). */
  private serveSubscriptions(): void {
    if (!this.declared.resources || !this.declared.subscribe) return;
    const { hub, startup } = this.options;
    const resources = hub.resourcePassthrough;
    this.server.setRequestHandler('resources/subscribe', async (request, ctx) => {
      await startup();
      await resources.subscribe(request.params.uri, this, ctx.mcpReq.signal);
      return {};
    });
    this.server.setRequestHandler('resources/unsubscribe', async (request, ctx) => {
      await resources.unsubscribe(request.params.uri, this, ctx.mcpReq.signal);
      return {};
    });
    this.unsubscribe.push(() => resources.forget(this));
  }

  /** An upstream's prompt or resource notice, passed to our client when it was told of that capability. */
  private relayNotice(notice: HubNotice | { readonly kind: 'resources_changed' }): void {
    if (this.closing !== undefined || this.server.transport === undefined) return;
    const sent = (() => {
      switch (notice.kind) {
        case 'prompts_changed':
          return this.declared.prompts ? this.server.sendPromptListChanged() : undefined;
        case 'resources_changed':
          return this.declared.resources ? this.server.sendResourceListChanged() : undefined;
        case 'resource_updated':
          // Over HTTP, only the sessions that subscribed hear of it.
          return this.options.hub.resourcePassthrough.watches(notice.uri, this)
            ? this.server.sendResourceUpdated({ uri: notice.uri })
            : undefined;
        case 'offered_changed':
          // A capability can't be added after initialize: the lists that exist are announced again.
          return Promise.all([
            this.declared.prompts ? this.server.sendPromptListChanged() : undefined,
            this.declared.resources ? this.server.sendResourceListChanged() : undefined,
          ]);
      }
    })();
    sent?.catch((error: unknown) =>
      Logger.of(this.options.log).info(`could not tell the client of ${notice.kind}: ${String(error)}`),
    );
  }

  /**
   * Whether the Server has a handler for this request method. The SDK has no query for it; its
   * `assertCanSetRequestHandler` throws exactly when a handler exists.
   */
  serves(method: string): boolean {
    try {
      this.server.assertCanSetRequestHandler(method);
      return false;
    } catch {
      return true;
    }
  }

  /** Serves the client on `transport`; `onClosed` runs once when the connection ends, whoever ended it. */
  async connect(transport: Transport, onClosed: () => void): Promise<void> {
    this.server.onclose = onClosed;
    await this.server.connect(transport);
  }

  /**
   * Stops every script (cancelling their calls upstream), lets the calls watching them answer
   * with their endings, then closes the connection. Resolves with how each script that was
   * running ended, e.g. `a1b2c3-4 stopped`.
   */
  close(): Promise<string[]> {
    this.closing ??= (async () => {
      for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
      this.asking?.inputs.failAll('the connection to the MCP client closed');
      const ended = await this.owner.close();
      await this.answering.answered();
      await this.server.close().catch(logFailure("closing the client's MCP session", this.options.log));
      return ended.map(({ id, status }) => `${id} ${status}`);
    })();
    return this.closing;
  }

  private callTool(name: string, args: unknown, ctx: ServerContext, trace: TraceContext | undefined): Promise<ToolCallAnswer> {
    const deps = {
      hub: this.options.hub,
      settings: this.options.settings,
      startup: this.options.startup,
      log: this.options.log,
      origin: () => this.origin,
      codeExecution: (input: unknown, context: ServerContext, span?: TraceContext) =>
        this.callCodeExecution(input, context, span),
      openCalls: this.openCalls,
      ...(this.tasks !== undefined && this.asking !== undefined
        ? {
            inputRequired: {
              tasks: this.tasks,
              inputs: this.asking.inputs,
              codec: this.codec,
            },
          }
        : {}),
    };
    const call = () => callTool(deps, name, args, ctx, trace);
    return this.asking === undefined ? call() : this.asking.during(ctx, call);
  }

  private async callCodeExecution(args: unknown, ctx: ServerContext, trace: TraceContext | undefined): Promise<ToolCallAnswer> {
    await this.options.startup();
    if (this.closing !== undefined) return refusalAnswer('the server is shutting down');
    // Read once before the first script if no tools/list has; then again at each list and save.
    await this.options.listing.savedSkills();
    const scripts = this.owner.scriptsNow();
    // Only a shutdown that began before the first request leaves no supply (RequestGate lets no call come before it).
    if (scripts === undefined) return refusalAnswer('the server is shutting down');
    const { asking, tasks } = this;
    return callCodeExecution(
      {
        scripts,
        maxYieldMs: this.options.settings.maxYieldMs,
        ...(this.tokens !== undefined ? { tokens: this.tokens } : {}),
        ...(asking !== undefined
          ? { inputRequired: { inputs: asking.inputs, codec: this.codec, ...(tasks !== undefined ? { tasks } : {}) } }
          : {}),
      },
      args,
      ctx,
      trace,
    );
  }

  /** The tools changed from what this client last listed: it is told, if it is still here. */
  private toolsChanged(): void {
    if (this.closing !== undefined) return;
    this.server
      .sendToolListChanged()
      .catch((error: unknown) =>
        Logger.of(this.options.log).warn(`could not tell the client its tools changed: ${String(error)}`),
      );
  }

  /** A logging notification, unless the client's level filters it out; a client gone is no error. */
  private sendLog(params: LoggingMessageNotification['params']): void {
    if (this.asking !== undefined) {
      this.asking.sendLog(params);
      return;
    }
    const transport = this.server.transport;
    if (transport === undefined) return;
    // Over HTTP the SDK keeps the client's logging/setLevel under its session id.
    this.server
      .sendLoggingMessage(params, transport.sessionId)
      .catch(logFailure('a log message to the client', this.options.log));
  }
}
