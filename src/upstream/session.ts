/**
 * One live connection to an upstream: a client over one transport (for stdio, one process),
 * from connect to close. A restart is a new session.
 */
import {
  Client,
  SdkError,
  SdkErrorCode,
  specTypeSchemas,
  type CallToolResult,
  type ClientCapabilities,
  type Implementation,
  type Progress,
  type ResultTypeMap,
  type ServerCapabilities,
  type ReadResourceResult,
  type Transport,
} from '@modelcontextprotocol/client';
import * as z from 'zod';
import { ResultTooLargeError, ToolRefusedError, UpstreamAnswerError, UpstreamLostError } from '../support/errors.js';
import { quoteInput } from '../support/echo.js';
import { describeIssues } from '../json-rpc/describe-issues.js';
import { describeSize, faultOf, type AnswerFault } from './answer-check.js';
import { describeAuthFailure, needsSignIn } from './auth/describe-auth-failure.js';
import { SignInNeededError, type UpstreamOAuthProvider } from './auth/oauth-provider.js';
import { RefusalNotes } from './auth/refusals.js';
import type { UpstreamAuth } from './auth/upstream-auth.js';
import { formatDelay } from './backoff.js';
import { messageWithCauses } from './error-text.js';
import { Liveness } from './liveness.js';
import { READ_LIMIT_RULE } from './read-limit.js';
import { ProgressRouter } from './progress.js';
import type { PassthroughMethod, PassthroughNotice } from './passthrough.js';
import { listResourcePages, type ResourceListing } from './resource-routes.js';
import { installRelay, type LogListener, type RequestRelay } from './relay.js';
import type { UpstreamSpec } from './spec.js';
import { StderrLines } from '../support/stderr-lines.js';
import { admitTools, type ListedTool } from './tool-admission.js';
import { checkToolResult } from './tool-result-check.js';
import { connectUpstream, remoteFetch, type TransportKind } from './transport.js';
import { logFailure, type Log } from '../support/log.js';

/** `tools/list` pages followed before the listing counts as broken (a cursor that never ends). */
export const TOOLS_LIST_MAX_PAGES = 100;

/**
 * The SDK's own timeout on a tool call: the largest a Node timer takes (a larger one fires at
 * once). The caller enforces its own per-call timeout through the AbortSignal.
 */
export const SDK_CALL_TIMEOUT_MS = 2_147_483_647;

/** After close, how long to wait for the upstream's process to be gone (its process group gets SIGKILL by 2.5 s). */
export const SESSION_EXIT_WAIT_MS = 10_000;

/**
 * A page of tools/list as the SDK is asked to check it: the tools themselves are checked one by one
 * (tool-admission.ts), since the SDK's check of a whole page recurses through every schema.
 */
const TOOLS_PAGE = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/** A tools/call result as the SDK is asked to check it: not at all, so that what it was can be quoted (checkToolResult). */
const ANY_RESULT = z.unknown();

export interface SessionOptions {
  readonly clientInfo: Implementation;
  readonly capabilities: ClientCapabilities;
  readonly relay: () => RequestRelay | undefined;
  readonly onLog: LogListener;
  /** Our stderr, one line at a time. */
  readonly log: Log;
  readonly signal: AbortSignal;
  /** An upstream that hasn't answered `initialize`, or a page of `tools/list`, within this has failed to start. */
  readonly startTimeoutMs: number;
  /** The longest message read from the upstream (read-limit.ts). */
  readonly maxMessageBytes: number;
  /** A remote upstream idle this long is pinged, and pinged before its next call; 0: never. */
  readonly pingIntervalMs: number;
  /** A ping not answered within this means the remote upstream is gone. */
  readonly pingTimeoutMs: number;
  /** Remote upstreams' sign-ins (auth/upstream-auth.ts); absent, they send their entry's headers alone. */
  readonly auth?: UpstreamAuth;
  /** A stdio upstream's time to end by itself after its stdin closes, before SIGTERM; absent, GROUP_TERM_AFTER_MS. */
  readonly closeGraceMs?: number;
}

/** Why an upstream could not start, in words; and whether only a new sign-in can change that (needsSignIn). */
export class UpstreamStartError extends Error {
  override readonly name = 'UpstreamStartError';
  readonly signInNeeded: boolean;

  constructor(
    spec: UpstreamSpec,
    error: unknown,
    stderrTail: readonly string[],
    options: SessionOptions,
    signIn: SignInContext | undefined,
  ) {
    super(describeStartFailure(spec, error, stderrTail, options, signIn), { cause: error });
    this.signInNeeded =
      spec.transport !== 'stdio' && signIn !== undefined && needsSignIn(error, { spec, oauth: signIn.provider !== undefined });
  }
}

export class UpstreamSession {
  /**
   * Called once when the connection ends by itself (process exit, transport closed), or when a
   * remote upstream stopped answering pings (with the reason); not on close().
   */
  onLost: ((unanswered?: string) => void) | undefined;
  /** Called when the upstream says its tool list changed. */
  onToolsChanged: (() => void) | undefined;
  /** Called for the upstream's prompt and resource notifications, relayed to our clients (passthrough.ts). */
  onPassthroughNotice: ((notice: PassthroughNotice) => void) | undefined;
  /** Called when the upstream says its resource list changed (`notifications/resources/list_changed`). */
  onResourcesChanged: (() => void) | undefined;
  tools: ListedTool[] = [];
  /** Its resources and templates, listed at open (none when listing them failed: logged). */
  resources: ResourceListing = { resources: [], templates: [] };
  private lost = false;
  private closing = false;
  /** Set when a remote upstream stopped answering pings: why. */
  private unanswered: string | undefined;
  private liveness: Liveness | undefined;
  private readonly progress = new ProgressRouter();

  private constructor(
    private readonly spec: UpstreamSpec,
    private readonly client: Client,
    readonly kind: TransportKind,
    private readonly ended: Promise<void>,
    private readonly options: SessionOptions,
    private readonly signIn: SignInContext | undefined,
  ) {}

  get name(): string {
    return this.spec.name;
  }

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
      client.setNotificationHandler('notifications/prompts/list_changed', () =>
        session?.onPassthroughNotice?.({ kind: 'prompts_changed' }),
      );
      client.setNotificationHandler('notifications/resources/updated', (notification) =>
        session?.onPassthroughNotice?.({ kind: 'resource_updated', uri: notification.params.uri }),
      );
      client.setNotificationHandler('notifications/resources/list_changed', () => session?.onResourcesChanged?.());
      client.onclose = () => {
        end.hasEnded = true;
        markEnded();
        if (session?.client === client) session.handleEnd();
      };
      // Before it is up, a transport error is the start failure, reported once as such; once it is
      // lost or closing, what its teardown aborts is no news.
      client.onerror = (error) => {
        if (session?.client === client && !session.lost && !session.closing)
          options.log(`codemode-mcp: upstream "${spec.name}": ${error.message}`, 'warn');
      };
      return client;
    };
    let connected;
    let signIn: SignInContext | undefined;
    try {
      signIn = await prepareSignIn(spec, options);
      connected = await connectUpstream(spec, {
        createClient,
        stderr,
        timeoutMs: options.startTimeoutMs,
        signal: options.signal,
        maxMessageBytes: options.maxMessageBytes,
        log: options.log,
        ...(options.closeGraceMs !== undefined ? { closeGraceMs: options.closeGraceMs } : {}),
        ...(signIn?.provider !== undefined ? { authProvider: signIn.provider } : {}),
        ...(signIn !== undefined ? { refusals: signIn.refusals } : {}),
      });
    } catch (error) {
      await Promise.all([...clients.values()].map(({ ended }) => waitAtMost(ended, SESSION_EXIT_WAIT_MS)));
      throw new UpstreamStartError(spec, error, stderr.tail, options, signIn);
    }
    const end = clients.get(connected.client)!;
    session = new UpstreamSession(spec, connected.client, connected.kind, end.ended, options, signIn);
    session.lost = end.hasEnded;
    session.progress.attach(connected.transport);
    if (connected.kind !== 'stdio') session.watchLiveness(connected.transport);
    try {
      session.tools = await session.listTools(options.signal);
      if (session.lost) throw new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
      // Its tools are what it is for: resources it can't list leave it serving them, and say so.
      session.resources = await session.listResources(options.signal).catch((error: unknown) => {
        if (session.lost) throw error;
        options.log(
          `codemode-mcp: upstream "${spec.name}": listing its resources failed, so none are offered: ${messageWithCauses(error)}`,
        );
        return { resources: [], templates: [] };
      });
    } catch (error) {
      await session.close();
      throw new UpstreamStartError(spec, error, stderr.tail, options, signIn);
    }
    return session;
  }

  get isLost(): boolean {
    return this.lost;
  }

  /** What the upstream said at initialize that it offers. */
  get capabilities(): ServerCapabilities {
    return this.client.getServerCapabilities() ?? {};
  }

  /**
   * A request of our client's passed on as it came (prompts, resources, completions), its result
   * checked against the method's schema by the SDK. No timeout of ours: the client's own timeout
   * and cancel govern, through `signal`. The upstream's JSON-RPC error rejects as it sent it.
   */
  async forward<M extends PassthroughMethod>(
    method: M,
    params: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<ResultTypeMap[M]> {
    try {
      return await this.client.request({ method, params }, { timeout: SDK_CALL_TIMEOUT_MS, ...(signal ? { signal } : {}) });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw error;
    }
  }

  /**
   * Every page of `tools/list`, following `nextCursor`, each tool checked on its own: one whose
   * schema can't be used is kept with a placeholder and a note, and logged (tool-admission.ts).
   */
  async listTools(signal?: AbortSignal): Promise<ListedTool[]> {
    if (!this.client.getServerCapabilities()?.tools) return [];
    const tools: ListedTool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < TOOLS_LIST_MAX_PAGES; page++) {
      let result: z.infer<typeof TOOLS_PAGE>;
      try {
        result = await this.client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, TOOLS_PAGE, {
          timeout: this.options.startTimeoutMs,
          ...(signal !== undefined ? { signal } : {}),
        });
      } catch (error) {
        const fault = faultOf(error);
        if (fault === undefined) throw error;
        throw new Error(`it answered tools/list with ${describeFault(fault)}`, { cause: error });
      }
      const admitted = admitTools(result.tools);
      for (const problem of admitted.problems) this.options.log(`codemode-mcp: upstream "${this.name}": ${problem}`, 'warn');
      tools.push(...admitted.tools);
      if (result.nextCursor === undefined) return tools;
      if (seen.has(result.nextCursor)) throw new Error(`tools/list sent the cursor ${JSON.stringify(result.nextCursor)} twice`);
      seen.add(result.nextCursor);
      cursor = result.nextCursor;
    }
    throw new Error(`tools/list did not end within ${TOOLS_LIST_MAX_PAGES} pages`);
  }

  /** Every page of its resources and resource templates (resource-routes.ts); none without the capability. */
  listResources(signal?: AbortSignal): Promise<ResourceListing> {
    return listResourcePages(this.client, {
      timeoutMs: this.options.startTimeoutMs,
      ...(signal !== undefined ? { signal } : {}),
    });
  }

  /**
   * Reads a resource by its URI, as the upstream wrote it; `label` names the read in errors
   * (`resources.read("test://a")`). Fails as callTool does: refused when nothing was sent,
   * UpstreamLostError, ResultTooLargeError, UpstreamAnswerError for an answer that isn't a read result.
   */
  async readResource(uri: string, label: string, signal: AbortSignal | undefined): Promise<ReadResourceResult> {
    const result = await this.sendChecked(label, signal, () =>
      this.send(label, signal, (options) =>
        this.client.request({ method: 'resources/read', params: { uri } }, ANY_RESULT, options),
      ),
    );
    const checked = specTypeSchemas.ReadResourceResult['~standard'].validate(result);
    if (checked.issues === undefined) return checked.value;
    throw new UpstreamAnswerError(this.name, label, describeIssues(checked.issues, result), 'a resources/read result');
  }

  /**
   * Calls the tool by its own name and returns its result as sent. `client.request` rather than
   * `client.callTool`, which would throw for structured content that breaks the tool's output schema.
   * An answer that isn't a tool result rejects at once with UpstreamAnswerError, one too large to
   * read with ResultTooLargeError; the connection stays up either way.
   */
  async callTool(
    tool: string,
    scriptName: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    onProgress: ((progress: Progress) => void) | undefined,
  ): Promise<CallToolResult> {
    const result = await this.sendChecked(scriptName, signal, () =>
      this.sendToolCall(tool, scriptName, args, signal, onProgress),
    );
    return checkToolResult(result, this.name, scriptName);
  }

  /**
   * Sends once the upstream is known to be alive (a remote one idle for a while is pinged first),
   * and once more after a sign-in the client was offered; an authorization failure is a refusal.
   */
  private async sendChecked<T>(scriptName: string, signal: AbortSignal | undefined, send: () => Promise<T>): Promise<T> {
    const pinged = this.liveness?.beforeUse();
    if (pinged !== undefined) {
      await pinged.catch((error: Error) => {
        throw new ToolRefusedError('UPSTREAM_DOWN', scriptName, `upstream "${this.name}" is down: ${error.message}`);
      });
    }
    for (let attempt = 1; ; attempt++) {
      try {
        return await send();
      } catch (error) {
        const refusal = this.describeAuth(error);
        if (refusal === undefined) throw error;
        // A sign-in offered to the client (a first one, or more scope for this tool) may still come:
        // the call was refused unread, so once signed in it is sent once more.
        const pending = this.options.auth?.pendingSignIn(this.name);
        if (pending !== undefined && attempt === 1 && (await settledWithin(pending, signal))) continue;
        if (signal?.aborted) throw signal.reason;
        const lostSignIn = error instanceof SignInNeededError || this.signIn?.refusals.last?.status === 401;
        if (lostSignIn) this.loseSignIn(refusal);
        throw new ToolRefusedError(
          'UPSTREAM_UNAUTHORIZED',
          scriptName,
          `upstream "${this.name}" ${refusal}`,
          'The upstream refused it unread',
        );
      }
    }
  }

  private async sendToolCall(
    tool: string,
    scriptName: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    onProgress: ((progress: Progress) => void) | undefined,
  ): Promise<unknown> {
    const progress = onProgress === undefined ? undefined : this.progress.register(onProgress);
    const params = {
      name: tool,
      arguments: args,
      ...(progress !== undefined ? { _meta: { progressToken: progress.token } } : {}),
    };
    try {
      return await this.send(scriptName, signal, (options) =>
        this.client.request({ method: 'tools/call', params }, ANY_RESULT, options),
      );
    } finally {
      progress?.release();
    }
  }

  /** One request with no SDK timeout of its own (the caller's signal ends it), its failure named for the script. */
  private async send<T>(
    scriptName: string,
    signal: AbortSignal | undefined,
    request: (options: { timeout: number; signal?: AbortSignal }) => Promise<T>,
  ): Promise<T> {
    try {
      return await request({ timeout: SDK_CALL_TIMEOUT_MS, ...(signal !== undefined ? { signal } : {}) });
    } catch (error) {
      // The SDK rejects an aborted call with its own REQUEST_TIMEOUT error; the caller's reason says more.
      if (signal?.aborted) throw signal.reason;
      if (error instanceof SdkError && error.code === SdkErrorCode.NotConnected) {
        throw new ToolRefusedError('UPSTREAM_DOWN', scriptName, `upstream "${this.name}" had just gone away`);
      }
      if (this.lost || this.closing) {
        const how =
          this.unanswered !== undefined
            ? 'stopped answering'
            : this.closing
              ? 'was closed'
              : this.kind === 'stdio'
                ? 'exited'
                : 'disconnected';
        throw new UpstreamLostError(this.name, scriptName, how);
      }
      const fault = faultOf(error);
      if (fault?.kind === 'too_large') {
        throw new ResultTooLargeError(
          this.name,
          scriptName,
          `its result came as a message of ${describeSize(fault)}, past the ${fault.limit} bytes read from an upstream (${READ_LIMIT_RULE})`,
        );
      }
      if (fault?.kind === 'invalid') throw new UpstreamAnswerError(this.name, scriptName, fault.detail);
      throw error;
    }
  }

  /** What an authorization failure of this upstream means, in words; undefined for any other error. */
  private describeAuth(error: unknown): string | undefined {
    if (this.spec.transport === 'stdio' || this.signIn === undefined) return undefined;
    return describeAuthFailure(error, {
      spec: this.spec,
      refusal: this.signIn.refusals.last,
      oauth: this.signIn.provider !== undefined,
      ...offeredNote(this.options.auth, this.name),
    });
  }

  /** Its sign-in no longer holds (revoked, expired past renewal): down with the reason, reconnected with backoff. */
  private loseSignIn(reason: string): void {
    this.unanswered = reason;
    this.handleEnd();
    void this.client.close().catch(logFailure(`closing upstream "${this.name}" after its sign-in was lost`, this.options.log));
  }
  async notifyRootsListChanged(): Promise<void> {
    await this.client.sendRootsListChanged();
  }

  /** Closes the client and, for stdio, waits until the process is gone. */
  async close(): Promise<void> {
    this.closing = true;
    this.liveness?.stop();
    await this.client.close().catch(logFailure(`closing upstream "${this.name}"`, this.options.log));
    await waitAtMost(this.ended, SESSION_EXIT_WAIT_MS);
  }

  /** Pings a remote upstream when idle, and before a call after an idle spell (liveness.ts). */
  private watchLiveness(transport: Transport): void {
    const { pingIntervalMs, pingTimeoutMs } = this.options;
    if (pingIntervalMs === 0) return;
    const liveness = new Liveness({
      intervalMs: pingIntervalMs,
      timeoutMs: pingTimeoutMs,
      ping: (timeout) => this.client.ping({ timeout }),
      onDead: (reason) => {
        this.unanswered = reason;
        this.handleEnd();
        // Its calls in flight fail now, as "stopped answering", and its HTTP streams are let go.
        void this.client.close().catch(logFailure(`closing upstream "${this.name}", which stopped answering`, this.options.log));
      },
    });
    this.liveness = liveness;
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      liveness.heard();
      deliver?.(message, extra);
    };
  }

  private handleEnd(): void {
    if (this.lost) return;
    this.lost = true;
    this.liveness?.stop();
    if (!this.closing) this.onLost?.(this.unanswered);
  }
}

/** A remote upstream's sign-in for one connection: its provider (none when the entry's headers carry the credential) and what it refused. */
interface SignInContext {
  readonly provider: UpstreamOAuthProvider | undefined;
  readonly refusals: RefusalNotes;
}

async function prepareSignIn(spec: UpstreamSpec, options: SessionOptions): Promise<SignInContext | undefined> {
  if (spec.transport === 'stdio') return undefined;
  const provider = options.auth?.providerFor(spec, remoteFetch(spec, options));
  await provider?.prepare();
  return { provider, refusals: new RefusalNotes() };
}

function offeredNote(auth: UpstreamAuth | undefined, name: string): { offered?: string } {
  const offered = auth?.offerNote(name);
  return offered === undefined ? {} : { offered };
}

/** True once `promise` resolves; false when it rejects or `signal` aborts first. */
async function settledWithin(promise: Promise<void>, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return false;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<boolean>((resolve) => {
    onAbort = () => resolve(false);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => false,
      ),
      aborted,
    ]);
  } finally {
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * `it exited during startup; its stderr last said: "npm error code SELF_SIGNED_CERT_IN_CHAIN" / "npm error A
 * complete log of this run ..."`: its last STDERR_TAIL_LINES lines, each quoted and cut at 200 characters.
 */
function describeStartFailure(
  spec: UpstreamSpec,
  error: unknown,
  stderrTail: readonly string[],
  options: SessionOptions,
  signIn: SignInContext | undefined,
): string {
  const { startTimeoutMs } = options;
  const authFailure =
    spec.transport === 'stdio' || signIn === undefined
      ? undefined
      : describeAuthFailure(error, {
          spec,
          refusal: signIn.refusals.last,
          oauth: signIn.provider !== undefined,
          ...offeredNote(options.auth, spec.name),
        });
  // NotConnected: our stdio transport refuses to send once its process is ending.
  const reason =
    authFailure !== undefined
      ? authFailure
      : error instanceof SdkError && (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected)
        ? spec.transport === 'stdio'
          ? 'it exited during startup'
          : 'it closed the connection during startup'
        : error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout
          ? `it did not answer within ${formatDelay(startTimeoutMs)} (upstreamStartTimeoutMs)`
          : messageWithCauses(error);
  if (stderrTail.length === 0) return reason;
  const said = stderrTail.map((line) => quoteInput(line.trim())).join(' / ');
  return `${reason}; its stderr last said: ${said}`;
}

/** What an answer to tools/list was, when it couldn't be used. */
function describeFault(fault: AnswerFault): string {
  return fault.kind === 'invalid'
    ? `something that isn't a result (${fault.detail})`
    : `a message of ${describeSize(fault)}, past the ${fault.limit} bytes read from an upstream (${READ_LIMIT_RULE})`;
}

async function waitAtMost(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms).unref()))]);
  clearTimeout(timer);
}
