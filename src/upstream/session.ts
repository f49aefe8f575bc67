/**
 * One live connection to an upstream: a client over one transport (for stdio, one process),
 * from connect to close. A restart is a new session.
 */
import {
  Client,
  SdkError,
  SdkErrorCode,
  type CallToolResult,
  type ClientCapabilities,
  type Implementation,
  type Progress,
  type Tool,
} from '@modelcontextprotocol/client';
import { ToolRefusedError, UpstreamLostError } from '../errors.js';
import { ProgressRouter } from './progress.js';
import { installRelay, type LogListener, type RequestRelay } from './relay.js';
import type { UpstreamSpec } from './spec.js';
import { StderrLines } from './stderr-lines.js';
import { connectUpstream, type TransportKind } from './transport.js';

/** An upstream that hasn't answered `initialize`, or a page of `tools/list`, within this is down. */
export const UPSTREAM_START_TIMEOUT_MS = 60_000;

/** `tools/list` pages followed before the listing counts as broken (a cursor that never ends). */
export const TOOLS_LIST_MAX_PAGES = 100;

/**
 * The SDK's own timeout on a tool call: the largest a Node timer takes (a larger one fires at
 * once). The caller enforces its own per-call timeout through the AbortSignal.
 */
export const SDK_CALL_TIMEOUT_MS = 2_147_483_647;

/** After close, how long to wait for the upstream's process to be gone (the SDK escalates to SIGKILL by 4 s). */
export const SESSION_EXIT_WAIT_MS = 10_000;

export interface SessionOptions {
  readonly clientInfo: Implementation;
  readonly capabilities: ClientCapabilities;
  readonly relay: () => RequestRelay | undefined;
  readonly onLog: LogListener;
  /** Our stderr, one line at a time. */
  readonly log: (line: string) => void;
  readonly signal: AbortSignal;
}

export class UpstreamSession {
  /** Called once when the connection ends by itself (process exit, transport closed); not on close(). */
  onLost: (() => void) | undefined;
  /** Called when the upstream says its tool list changed. */
  onToolsChanged: (() => void) | undefined;
  tools: Tool[] = [];
  private lost = false;
  private closing = false;
  private readonly progress = new ProgressRouter();

  private constructor(
    readonly name: string,
    private readonly client: Client,
    readonly kind: TransportKind,
    private readonly ended: Promise<void>,
  ) {}

  /** Connects and lists the tools; a failure closes whatever was opened and names the reason. */
  static async open(spec: UpstreamSpec, options: SessionOptions): Promise<UpstreamSession> {
    const stderr = new StderrLines(`[${spec.name}] `, options.log);
    const clients = new Map<Client, { ended: Promise<void>; hasEnded: boolean }>();
    let session: UpstreamSession | undefined;
    const createClient = (): Client => {
      const client = new Client(options.clientInfo, { capabilities: options.capabilities });
      let markEnded = (): void => {};
      const end = { ended: new Promise<void>((resolve) => (markEnded = resolve)), hasEnded: false };
      clients.set(client, end);
      installRelay(client, spec.name, options.capabilities, options.relay, options.onLog);
      client.setNotificationHandler('notifications/tools/list_changed', () => session?.onToolsChanged?.());
      client.onclose = () => {
        end.hasEnded = true;
        markEnded();
        if (session?.client === client) session.handleEnd();
      };
      // Before it is up, a transport error is the start failure, reported once as such.
      client.onerror = (error) => {
        if (session?.client === client) options.log(`codemode-mcp: upstream "${spec.name}": ${error.message}`);
      };
      return client;
    };
    let connected;
    try {
      connected = await connectUpstream(spec, { createClient, stderr, timeoutMs: UPSTREAM_START_TIMEOUT_MS, signal: options.signal });
    } catch (error) {
      await Promise.all([...clients.values()].map(({ ended }) => waitAtMost(ended, SESSION_EXIT_WAIT_MS)));
      throw new Error(describeStartFailure(spec, error, stderr.tail), { cause: error });
    }
    const end = clients.get(connected.client)!;
    session = new UpstreamSession(spec.name, connected.client, connected.kind, end.ended);
    session.lost = end.hasEnded;
    session.progress.attach(connected.transport);
    try {
      session.tools = await session.listTools(options.signal);
      if (session.lost) throw new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
    } catch (error) {
      await session.close();
      throw new Error(describeStartFailure(spec, error, stderr.tail), { cause: error });
    }
    return session;
  }

  get isLost(): boolean {
    return this.lost;
  }

  /** Every page of `tools/list`, following `nextCursor`. */
  async listTools(signal?: AbortSignal): Promise<Tool[]> {
    if (!this.client.getServerCapabilities()?.tools) return [];
    const tools: Tool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < TOOLS_LIST_MAX_PAGES; page++) {
      const result = await this.client.request(
        { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
        { timeout: UPSTREAM_START_TIMEOUT_MS, ...(signal !== undefined ? { signal } : {}) },
      );
      tools.push(...result.tools);
      if (result.nextCursor === undefined) return tools;
      if (seen.has(result.nextCursor)) throw new Error(`tools/list sent the cursor ${JSON.stringify(result.nextCursor)} twice`);
      seen.add(result.nextCursor);
      cursor = result.nextCursor;
    }
    throw new Error(`tools/list did not end within ${TOOLS_LIST_MAX_PAGES} pages`);
  }

  /**
   * Calls the tool by its own name and returns its result as sent. `client.request` rather than
   * `client.callTool`, which would throw for structured content that breaks the tool's output schema.
   */
  async callTool(
    tool: string,
    scriptName: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    onProgress: ((progress: Progress) => void) | undefined,
  ): Promise<CallToolResult> {
    const progress = onProgress === undefined ? undefined : this.progress.register(onProgress);
    const params = { name: tool, arguments: args, ...(progress !== undefined ? { _meta: { progressToken: progress.token } } : {}) };
    try {
      return await this.client.request(
        { method: 'tools/call', params },
        { timeout: SDK_CALL_TIMEOUT_MS, ...(signal !== undefined ? { signal } : {}) },
      );
    } catch (error) {
      // The SDK rejects an aborted call with its own REQUEST_TIMEOUT error; the caller's reason says more.
      if (signal?.aborted) throw signal.reason;
      if (error instanceof SdkError && error.code === SdkErrorCode.NotConnected) {
        throw new ToolRefusedError('UPSTREAM_DOWN', scriptName, `upstream "${this.name}" had just gone away`);
      }
      if (this.lost || this.closing) {
        throw new UpstreamLostError(this.name, scriptName, this.closing ? 'was closed' : this.kind === 'stdio' ? 'exited' : 'disconnected');
      }
      throw error;
    } finally {
      progress?.release();
    }
  }

  async notifyRootsListChanged(): Promise<void> {
    await this.client.sendRootsListChanged();
  }

  /** Closes the client and, for stdio, waits until the process is gone. */
  async close(): Promise<void> {
    this.closing = true;
    await this.client.close().catch(() => {});
    await waitAtMost(this.ended, SESSION_EXIT_WAIT_MS);
  }

  private handleEnd(): void {
    if (this.lost) return;
    this.lost = true;
    if (!this.closing) this.onLost?.();
  }
}

/** `it exited during startup; its stderr last said: "fatal: GITHUB_TOKEN is not set"`. */
function describeStartFailure(spec: UpstreamSpec, error: unknown, stderrTail: readonly string[]): string {
  const reason =
    error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed
      ? spec.transport === 'stdio'
        ? 'it exited during startup'
        : 'it closed the connection during startup'
      : error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout
        ? `it did not answer within ${UPSTREAM_START_TIMEOUT_MS / 1000} s`
        : messageWithCauses(error);
  const said = stderrTail.at(-1);
  return said === undefined ? reason : `${reason}; its stderr last said: ${JSON.stringify(said)}`;
}

/** `fetch failed (connect ECONNREFUSED 127.0.0.1:3000)`: Node's fetch keeps the useful part in `cause`. */
function messageWithCauses(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause === undefined || error.message.includes(cause) ? error.message : `${error.message} (${cause})`;
}

async function waitAtMost(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms).unref()))]);
  clearTimeout(timer);
}
