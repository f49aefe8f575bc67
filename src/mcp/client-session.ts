/**
 * One MCP session with one client: the SDK's low-level Server answering `tools/list` and
 * `tools/call` for `code_execution`, the session's scripts, and what flows between the client
 * and the upstreams (list changes, logging, progress, relayed requests, roots changes).
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
  type CallToolResult,
  type LoggingMessageNotification,
  type RequestId,
  type ServerContext,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/server';
import type { SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import { closestName } from '../../common/closest-names.js';
import { ToolRefusedError, SentCallError } from '../support/errors.js';
import { passthroughCapabilities, type Offered } from '../upstream/passthrough.js';
import type { HubNotice } from '../upstream/hub.js';
import { exposedTools, exposeProblems, failedCall, listedTool } from './exposed-tools.js';
import { ECHO_MAX_CHARS, quoteInput } from '../support/echo.js';
import { refusalAnswer } from '../scripts/answer.js';
import type { ChildSupply } from '../scripts/child-supply.js';
import { SessionScripts } from '../scripts/session-scripts.js';
import type { Settings } from '../config/settings.js';
import type { SkillsCaller } from '../script-host/types.js';
import type { SkillLine } from '../catalog/description.js';
import type { Principal, StateStore } from '../state/state-store.js';
import type { CallOrigin } from '../upstream/call-origins.js';
import { resourceCaller } from './resource-caller.js';
import { stateCaller } from './state-caller.js';
import type { UpstreamHub } from '../upstream/hub.js';
import { CODE_EXECUTION_TOOL, codeExecutionTool } from './code-execution-tool.js';
import { clientCanAnswer, relayToClient } from './relay-to-client.js';
import { logFailure, type Log } from '../support/log.js';
import { serveSkills, type SkillResources } from './serve-skills.js';
import { traceServerRequest } from '../telemetry/trace-server-request.js';
import type { TraceContext } from '../telemetry/telemetry.js';

/** The logger name on our own logging notifications (notify() payloads). */
export const LOGGER_NAME = 'codemode-mcp';

export interface ClientSessionOptions {
  readonly hub: UpstreamHub;
  /** The server's script children, once `initialize` has started them; asked for at the session's first code_execution call. */
  readonly supply: () => ChildSupply | undefined;
  readonly settings: Settings;
  readonly version: string;
  /** Settles when requests may be answered: the upstreams have started, or the startup wait is over. */
  readonly startup: () => Promise<void>;
  /** Our stderr, a line at a time. */
  readonly log: Log;
  /**
   * The server's only session (stdio): it gets the upstreams' requests and logs that no running
   * call claims, and its roots changes are passed to the upstreams. Over HTTP, sessions share the
   * upstreams, so neither happens (docs/server.md, "Sessions over HTTP").
   */
  readonly sole: boolean;
  /** Names the session in messages; over HTTP its id. */
  readonly label: string;
  /** Over HTTP: whether the client holds its GET stream open, the only way to reach it outside a call. */
  readonly streamOpen?: () => boolean;
  /** The server's state store, and whose state this session's scripts read and write in it. */
  readonly state: { readonly store: StateStore; readonly principal: Principal };
  /** The saved skills, served through the MCP Skills extension (skills/list, skills/get, skill:// resources). */
  readonly skills?: SkillsExtension;
  /** How this session's scripts' `skills` calls reach the skills library, saving as this session may (src/commands/skills-caller.ts). */
  readonly callSkills?: SkillsCaller;
  /** The saved skills, read again for each tools/list so the description names them as they are now. */
  readonly savedSkills?: () => Promise<readonly SkillLine[]>;
}

export class ClientSession {
  readonly server: Server;
  /** Made at the first code_execution call, once the client has initialized and the supply exists. */
  private scripts: SessionScripts | undefined;
  /** The tools the client last listed, as JSON: a catalog change that leaves them as they are needs no list_changed. */
  private listedTools: string | undefined;
  /** The saved skills as the last tools/list read them: a catalog change compares with what was listed. */
  private skillLines: readonly SkillLine[] | undefined;
  /** What the upstreams offered when the client initialized: the capabilities it was told of. */
  private readonly declared: Offered;
  /** The `skill://` resources, read beside the upstreams' own. */
  private readonly skillResources: SkillResources | undefined;
  private readonly unsubscribe: Array<() => void> = [];
  private closing: Promise<string[]> | undefined;
  /** Ids of the client's code_execution calls not yet answered, oldest first. */
  private readonly openCalls = new Set<RequestId>();
  /** This session, as the upstreams' requests and logs reach it. */
  readonly origin: CallOrigin;

  constructor(private readonly options: ClientSessionOptions) {
    const { hub } = options;
    this.declared = hub.offered();
    this.server = new Server(
      { name: 'codemode-mcp', version: options.version },
      {
        capabilities: {
          tools: { listChanged: true },
          logging: {},
          // Skill files are read as resources, so the capability is there even when no upstream offers one.
          ...(options.skills !== undefined ? { resources: {} } : {}),
          ...passthroughCapabilities(this.declared),
        },
        // Several upstreams changing at once make one notification.
        debouncedNotificationMethods: [
          'notifications/tools/list_changed',
          'notifications/prompts/list_changed',
          'notifications/resources/list_changed',
        ],
      },
    );
    this.server.setRequestHandler('tools/list', async () => {
      await options.startup();
      this.skillLines = await this.readSavedSkills();
      const tools = this.listTools();
      this.listedTools = JSON.stringify(tools);
      return { tools };
    });
    this.skillResources = options.skills === undefined ? undefined : serveSkills(this.server, options.skills);
    this.servePassthrough();
    this.server.setRequestHandler('tools/call', ({ params }, ctx) =>
      traceServerRequest(
        'tools/call',
        params.name,
        params._meta,
        (trace) => this.callTool(params.name, params.arguments, ctx, trace),
        {
          requestId: ctx.mcpReq.id,
          ...(ctx.sessionId !== undefined ? { sessionId: ctx.sessionId } : {}),
        },
      ),
    );
    if (options.sole) this.server.setNotificationHandler('notifications/roots/list_changed', () => hub.notifyRootsListChanged());
    this.server.onerror = (error) => options.log(`codemode-mcp: ${error.message}`, 'warn');

    const initialized = new Promise<void>((resolve) => (this.server.oninitialized = resolve));
    this.origin = {
      label: options.label,
      relay: relayToClient(this.server, initialized, {
        session: options.label,
        // Over HTTP a request goes out on the stream of a call still open, else on the GET stream.
        relatedRequest: () => [...this.openCalls].at(-1),
        ...(options.streamOpen !== undefined ? { streamOpen: options.streamOpen } : {}),
      }),
      accepts: (request) => clientCanAnswer(this.server.getClientCapabilities(), request),
      log: (upstream, params) =>
        this.sendLog({ ...params, logger: params.logger === undefined ? upstream : `${upstream}/${params.logger}` }),
    };
    if (options.sole) {
      hub.setFallbackOrigin(this.origin);
      this.unsubscribe.push(() => hub.setFallbackOrigin(undefined));
    }
    this.unsubscribe.push(hub.events.on('catalog-changed', () => this.catalogChanged()));
    this.unsubscribe.push(hub.events.on('notice', (notice) => this.relayNotice(notice)));
  }

  /** The saved skills for the description; a library that can't be read names none, and says so in the log. */
  private async readSavedSkills(): Promise<readonly SkillLine[] | undefined> {
    const savedSkills = this.options.savedSkills;
    if (savedSkills === undefined) return undefined;
    try {
      return await savedSkills();
    } catch (error) {
      this.options.log(
        `codemode-mcp: the saved skills could not be listed for the description: ${(error as Error).message}`,
        'warn',
      );
      return [];
    }
  }

  /** code_execution, then the exposed tools. */
  private listTools(): Tool[] {
    const { hub, settings } = this.options;
    const catalog = hub.catalog();
    for (const problem of exposeProblems(catalog.tools, settings.expose)) reportOnce(hub, problem, this.options.log);
    return [
      codeExecutionTool(catalog, settings, this.skillLines),
      ...exposedTools(catalog.tools, settings.expose).map(listedTool),
    ];
  }

  /** Prompts and completions passed through, for what the upstreams offered at initialize. */
  private servePassthrough(): void {
    const { hub, startup } = this.options;
    if (this.declared.prompts) {
      this.server.setRequestHandler('prompts/list', async (request, ctx) => {
        await startup();
        return hub.prompts.list(request.params?.cursor, ctx.mcpReq.signal);
      });
      this.server.setRequestHandler('prompts/get', async (request, ctx) => {
        await startup();
        return hub.prompts.get(request.params.name, request.params.arguments, ctx.mcpReq.signal);
      });
    }
    this.serveResources();
    if (this.declared.resources) {
      const resources = hub.resourcePassthrough;
      if (this.declared.subscribe) {
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
      this.unsubscribe.push(hub.events.on('resources-changed', () => this.relayNotice({ kind: 'resources_changed' })));
    }
    if (this.declared.completions) {
      this.server.setRequestHandler('completion/complete', async (request, ctx) => {
        await startup();
        return hub.completions.complete(request.params, ctx.mcpReq.signal);
      });
    }
  }

  /**
   * The resource methods, for the upstreams' resources (when they offered any) and the skills'
   * `skill://` files (when skills are served): a `skill://` URI is the skills', the rest the upstreams'.
   */
  private serveResources(): void {
    const { hub, startup } = this.options;
    const skills = this.skillResources;
    const passthrough = this.declared.resources ? hub.resourcePassthrough : undefined;
    if (skills === undefined && passthrough === undefined) return;
    this.server.setRequestHandler('resources/list', async (request, ctx) => {
      const cursor = request.params?.cursor;
      const own = skills !== undefined && cursor === undefined ? await skills.list(ctx) : [];
      if (passthrough === undefined) return { resources: own };
      await startup();
      const page = await passthrough.list(cursor, ctx.mcpReq.signal);
      return { ...page, resources: [...own, ...page.resources] };
    });
    this.server.setRequestHandler('resources/templates/list', async (request, ctx) => {
      const cursor = request.params?.cursor;
      const own = skills !== undefined && cursor === undefined ? [skills.template] : [];
      if (passthrough === undefined) return { resourceTemplates: own };
      await startup();
      const page = await passthrough.templates(cursor, ctx.mcpReq.signal);
      return { ...page, resourceTemplates: [...own, ...page.resourceTemplates] };
    });
    this.server.setRequestHandler('resources/read', async (request, ctx) => {
      const { uri } = request.params;
      if (skills?.matches(uri) === true) return skills.read(uri, ctx);
      if (passthrough === undefined) throw new ResourceNotFoundError(uri);
      await startup();
      return passthrough.read(uri, ctx.mcpReq.signal);
    });
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
      this.options.log(`codemode-mcp: could not tell the client of ${notice.kind}: ${String(error)}`),
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
   * Stops every script (cancelling their calls upstream), then closes the connection. Resolves
   * with how each script that was running ended, e.g. `a1b2c3-4 stopped`.
   */
  close(): Promise<string[]> {
    this.closing ??= (async () => {
      for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
      const ended = (await this.scripts?.close()) ?? [];
      await this.server.close().catch(logFailure("closing the client's MCP session", this.options.log));
      return ended.map(({ id, status }) => `${id} ${status}`);
    })();
    return this.closing;
  }

  private async callTool(name: string, args: unknown, ctx: ServerContext, trace?: TraceContext): Promise<CallToolResult> {
    if (name !== CODE_EXECUTION_TOOL && this.isExposed(name)) return this.callExposed(name, args, ctx, trace);
    if (name !== CODE_EXECUTION_TOOL) {
      // A name too long to quote whole can't be shown as code either.
      const asCode = name.length <= ECHO_MAX_CHARS ? `tools[${JSON.stringify(name)}](args)` : 'tools[name](args)';
      const exposed = exposedTools(this.options.hub.catalog().tools, this.options.settings.expose).map((tool) => tool.name);
      const offers =
        exposed.length === 0
          ? `one tool, "${CODE_EXECUTION_TOOL}"; call the other tools from a script in it`
          : `"${CODE_EXECUTION_TOOL}" and the tools it exposes (${exposed.join(', ')}); call the other tools from a script in ${CODE_EXECUTION_TOOL}`;
      const close = closestName(name, [CODE_EXECUTION_TOOL, ...exposed]);
      const hint = close !== null ? `; did you mean "${close}"?` : '';
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool ${quoteInput(name)}${hint}: this server offers ${offers}, as ${asCode}`,
      );
    }
    this.openCalls.add(ctx.mcpReq.id);
    try {
      return await this.callCodeExecution(args, ctx, trace);
    } finally {
      this.openCalls.delete(ctx.mcpReq.id);
    }
  }

  private isExposed(name: string): boolean {
    return exposedTools(this.options.hub.catalog().tools, this.options.settings.expose).some((tool) => tool.name === name);
  }

  /**
   * An exposed tool called directly: sent as a script's call would be (same refusals, same
   * toolCallTimeoutMs), its progress passed on under the client's token, its result as it came.
   */
  private async callExposed(name: string, args: unknown, ctx: ServerContext, trace?: TraceContext): Promise<CallToolResult> {
    await this.options.startup();
    const progressToken = ctx.mcpReq._meta?.progressToken;
    const onProgress =
      progressToken === undefined
        ? undefined
        : (progress: { progress: number; total?: number; message?: string }) =>
            void ctx.mcpReq
              .notify({ method: 'notifications/progress', params: { ...progress, progressToken } })
              .catch(logFailure('a progress notification to the client', this.options.log));
    const timeout = AbortSignal.timeout(this.options.settings.toolCallTimeoutMs);
    const signal = AbortSignal.any([ctx.mcpReq.signal, timeout]);
    this.openCalls.add(ctx.mcpReq.id);
    try {
      const input = args !== null && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
      return await this.options.hub.callTool(name, input, signal, {
        origin: this.origin,
        ...(onProgress ? { onProgress } : {}),
        ...(trace !== undefined ? { caller: { trace } } : {}),
      });
    } catch (error) {
      if (error instanceof ToolRefusedError || error instanceof SentCallError) return failedCall(error);
      if (timeout.aborted && !ctx.mcpReq.signal.aborted) {
        return failedCall(
          new Error(
            `TimeoutError: ${name} did not answer within ${this.options.settings.toolCallTimeoutMs} ms (toolCallTimeoutMs); it may still take effect`,
          ),
        );
      }
      throw error;
    } finally {
      this.openCalls.delete(ctx.mcpReq.id);
    }
  }

  private async callCodeExecution(args: unknown, ctx: ServerContext, trace?: TraceContext): Promise<CallToolResult> {
    await this.options.startup();
    const onProgress = progressSender(ctx);
    if (this.closing !== undefined) return refusalAnswer('the server is shutting down');
    // Read once before the first script if no tools/list has; then again at each list and save.
    this.skillLines ??= await this.readSavedSkills();
    if (this.scripts === undefined) {
      const supply = this.options.supply();
      // Only a shutdown that began before `initialize` leaves no supply (RequestGate lets no call come before it).
      if (supply === undefined) return refusalAnswer('the server is shutting down');
      this.scripts = this.createScripts(supply);
    }
    return this.scripts.handle(args ?? {}, {
      signal: ctx.mcpReq.signal,
      ...(onProgress !== undefined ? { onProgress } : {}),
      ...(trace !== undefined ? { trace } : {}),
    });
  }

  private createScripts(supply: ChildSupply): SessionScripts {
    const { hub, settings, callSkills } = this.options;
    return new SessionScripts({
      supply: supply.forSession(),
      catalog: () => hub.catalog().tools,
      unlisted: () => hub.unlistedPrefixes(),
      callTool: (name, args, signal, onProgress, caller) =>
        hub.callTool(name, args, signal, { onProgress, origin: this.origin, caller }),
      callResource: resourceCaller(hub, this.origin),
      callState: stateCaller(this.options.state.store, this.options.state.principal),
      ...(callSkills !== undefined ? { callSkills: this.skillsSaving(callSkills) } : {}),
      savedSkills: () => this.skillLines ?? [],
      settings,
      identity: { principal: this.options.state.principal, session: this.options.label },
      log: (data) => this.sendLog({ level: 'info', logger: LOGGER_NAME, data }),
    });
  }

  /**
   * The scripts' skills calls; once a save is done the saved skills are read again before the
   * script gets its answer, so the next script's searchTools finds it, and the client is told
   * its tools changed when the description now differs from the one it listed.
   */
  private skillsSaving(callSkills: SkillsCaller): SkillsCaller {
    return async (request, signal) => {
      const answer = await callSkills(request, signal);
      if (request.call === 'skills.save') {
        this.skillLines = await this.readSavedSkills();
        this.catalogChanged();
      }
      return answer;
    };
  }

  private catalogChanged(): void {
    if (this.listedTools === undefined || this.closing !== undefined) return;
    if (JSON.stringify(this.listTools()) === this.listedTools) return;
    this.server
      .sendToolListChanged()
      .catch((error: unknown) =>
        this.options.log(`codemode-mcp: could not tell the client its tools changed: ${String(error)}`, 'warn'),
      );
  }

  /** A logging notification, unless the client's level filters it out; a client gone is no error. */
  private sendLog(params: LoggingMessageNotification['params']): void {
    const transport = this.server.transport;
    if (transport === undefined) return;
    // Over HTTP the SDK keeps the client's logging/setLevel under its session id.
    this.server
      .sendLoggingMessage(params, transport.sessionId)
      .catch(logFailure('a log message to the client', this.options.log));
  }
}

/** Log lines said once per hub (per server), however many sessions list the tools. */
const reported = new WeakMap<UpstreamHub, Set<string>>();

function reportOnce(hub: UpstreamHub, line: string, log: (line: string) => void): void {
  const lines = reported.get(hub) ?? new Set<string>();
  reported.set(hub, lines);
  if (lines.has(line)) return;
  lines.add(line);
  log(line);
}

/**
 * When the client's call carries a progress token: a sender of `notifications/progress` for it,
 * `progress` counting the messages so it only ever increases, as MCP requires.
 */
function progressSender(ctx: ServerContext): ((message: string) => void) | undefined {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  let progress = 0;
  return (message) => {
    if (ctx.mcpReq.signal.aborted) return;
    progress += 1;
    ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken, progress, message } })
      .catch(logFailure('a progress notification to the client'));
  };
}
