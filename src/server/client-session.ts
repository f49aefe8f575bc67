/**
 * One MCP session with one client: the SDK's low-level Server answering `tools/list` and
 * `tools/call` for `code_execution`, the session's scripts, and what flows between the client
 * and the upstreams (list changes, logging, progress, relayed requests, roots changes).
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type LoggingMessageNotification,
  type RequestId,
  type ServerContext,
  type Transport,
} from '@modelcontextprotocol/server';
import { describeCodeExecution } from '../catalog/description.js';
import { ECHO_MAX_CHARS, quoteInput } from '../echo.js';
import { refusalAnswer } from '../scripts/answer.js';
import type { ChildSupply } from '../scripts/child-supply.js';
import { SessionScripts } from '../scripts/session-scripts.js';
import type { Settings } from '../settings.js';
import type { CallOrigin } from '../upstream/call-origins.js';
import type { UpstreamHub } from '../upstream/hub.js';
import { CODE_EXECUTION_TOOL, codeExecutionTool } from './code-execution-tool.js';
import { clientCanAnswer, relayToClient } from './relay-to-client.js';
import type { Log } from '../log.js';

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
}

export class ClientSession {
  readonly server: Server;
  /** Made at the first code_execution call, once the client has initialized and the supply exists. */
  private scripts: SessionScripts | undefined;
  /** The description the client last listed: a catalog change that leaves it as is needs no list_changed. */
  private listedDescription: string | undefined;
  private readonly unsubscribe: Array<() => void> = [];
  private closing: Promise<string[]> | undefined;
  /** Ids of the client's code_execution calls not yet answered, oldest first. */
  private readonly openCalls = new Set<RequestId>();
  /** This session, as the upstreams' requests and logs reach it. */
  readonly origin: CallOrigin;

  constructor(private readonly options: ClientSessionOptions) {
    const { hub } = options;
    this.server = new Server(
      { name: 'codemode-mcp', version: options.version },
      {
        capabilities: { tools: { listChanged: true }, logging: {} },
        // Several upstreams changing at once make one notification.
        debouncedNotificationMethods: ['notifications/tools/list_changed'],
      },
    );
    this.server.setRequestHandler('tools/list', async () => {
      await options.startup();
      const tool = codeExecutionTool(hub.tools(), options.settings);
      this.listedDescription = tool.description;
      return { tools: [tool] };
    });
    this.server.setRequestHandler('tools/call', (request, ctx) =>
      this.callTool(request.params.name, request.params.arguments, ctx),
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
    this.unsubscribe.push(hub.onCatalogChanged(() => this.catalogChanged()));
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
      await this.server.close().catch(() => {});
      return ended.map(({ id, status }) => `${id} ${status}`);
    })();
    return this.closing;
  }

  private async callTool(name: string, args: unknown, ctx: ServerContext): Promise<CallToolResult> {
    if (name !== CODE_EXECUTION_TOOL) {
      // A name too long to quote whole can't be shown as code either.
      const asCode = name.length <= ECHO_MAX_CHARS ? `tools[${JSON.stringify(name)}](args)` : 'tools[name](args)';
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool ${quoteInput(name)}: this server offers one tool, "${CODE_EXECUTION_TOOL}"; ` +
          `call the other tools from a script in it, as ${asCode}`,
      );
    }
    this.openCalls.add(ctx.mcpReq.id);
    try {
      return await this.callCodeExecution(args, ctx);
    } finally {
      this.openCalls.delete(ctx.mcpReq.id);
    }
  }

  private async callCodeExecution(args: unknown, ctx: ServerContext): Promise<CallToolResult> {
    await this.options.startup();
    const onProgress = progressSender(ctx);
    if (this.closing !== undefined) return refusalAnswer('the server is shutting down');
    if (this.scripts === undefined) {
      const supply = this.options.supply();
      // Only a shutdown that began before `initialize` leaves no supply (RequestGate lets no call come before it).
      if (supply === undefined) return refusalAnswer('the server is shutting down');
      this.scripts = this.createScripts(supply);
    }
    return this.scripts.handle(args ?? {}, { signal: ctx.mcpReq.signal, ...(onProgress !== undefined ? { onProgress } : {}) });
  }

  private createScripts(supply: ChildSupply): SessionScripts {
    const { hub, settings } = this.options;
    return new SessionScripts({
      supply: supply.forSession(),
      catalog: () => hub.tools(),
      unlisted: () => hub.unlistedPrefixes(),
      callTool: (name, args, signal, onProgress) => hub.callTool(name, args, signal, { onProgress, origin: this.origin }),
      settings,
      log: (data) => this.sendLog({ level: 'info', logger: LOGGER_NAME, data }),
    });
  }

  private catalogChanged(): void {
    if (this.listedDescription === undefined || this.closing !== undefined) return;
    if (describeCodeExecution(this.options.hub.tools(), this.options.settings) === this.listedDescription) return;
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
    this.server.sendLoggingMessage(params, transport.sessionId).catch(() => {});
  }
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
    ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, message } }).catch(() => {});
  };
}
