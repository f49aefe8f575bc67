/**
 * One live connection to an upstream: a client over one transport (for stdio, one process),
 * from connect to close. A restart is a new session. It composes the jobs kept in their own
 * files: the clients made while opening (session-clients.ts), why a start failed
 * (start-failure.ts), tools/list's pages (tool-pages.ts), a call's failure in our words
 * (call-failure.ts), the retry after a sign-in (sign-in-retry.ts) and a remote upstream's
 * pings (liveness.ts).
 */
import { SKILLS_EXTENSION_ID, SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import {
  LOG_LEVEL_META_KEY,
  SdkError,
  SdkErrorCode,
  specTypeSchemas,
  type CallToolResult,
  type Client,
  type GetPromptResult,
  type LoggingLevel,
  type Progress,
  type ResultTypeMap,
  type ServerCapabilities,
  type ReadResourceResult,
} from '@modelcontextprotocol/client';
import * as z from 'zod';
import { ToolRefusedError, UpstreamAnswerError } from '../../support/errors.js';
import { describeIssues } from '../../support/describe-issues.js';
import type { UpstreamAuth } from '../auth/upstream-auth.js';
import { translateCallFailure, type LostHow } from './call-failure.js';
import { messageWithCauses } from './error-text.js';
import { watchLiveness, type Liveness } from './liveness.js';
import { ProgressRouter } from '../routing/progress.js';
import type { PassthroughMethod, PassthroughNotice } from '../passthrough/passthrough.js';
import { listResourcePages, type ResourceListing } from '../passthrough/resource-routes.js';
import { paramHeaderValues, scanParamHeaders } from '../../support/param-headers.js';
import { listenForChanges } from './change-listen.js';
import { revisionOf } from './revision.js';
import { inputRequiredOf, roundParams, type UpstreamInputRequired, type UpstreamRound } from '../routing/round-trip.js';
import { TASKS_EXTENSION, carriedTaskOf, carryTaskAnswers, type UpstreamTask } from '../routing/task-answer.js';
import { UPSTREAM_TASK_CANCEL_WAIT_MS, type TaskRequests } from '../routing/upstream-task.js';
import { SessionClients, type ClientListener, type SessionClientsOptions } from './session-clients.js';
import { prepareSignIn, sendWithSignInRetry, type SignInContext } from './sign-in-retry.js';
import type { UpstreamSpec } from '../spec.js';
import { UpstreamStartError } from './start-failure.js';
import { StderrLines } from '../../support/stderr-lines.js';
import { settleWithin } from '../../support/settle.js';
import type { LiveGroups } from '../../support/process-group.js';
import type { ListedTool } from '../tools/tool-admission.js';
import { listToolPages } from '../tools/tool-pages.js';
import { checkToolResult } from '../tools/tool-result-check.js';
import { connectUpstream, type Connector, type TransportKind } from '../transport/connect-upstream.js';
import { logFailure, Logger, type Log } from '../../support/log.js';
import { traceHeaders, type TraceMeta } from '../../telemetry/telemetry.js';
import { timeoutSignal } from '../../support/timeout-signal.js';

/**
 * The SDK's own timeout on a tool call: the largest a Node timer takes (a larger one fires at
 * once). The caller enforces its own per-call timeout through the AbortSignal.
 */
export const SDK_CALL_TIMEOUT_MS = 2_147_483_647;

/**
 * `debug`: the level a call to an upstream in 2026-07-28 asks its log messages at (`_meta`
 * logLevel), so that it sends them all, as an upstream in 2025 does unless told a level; each
 * client then gets those at or above its own level (its logging/setLevel, or its request's logLevel).
 */
export const UPSTREAM_LOG_LEVEL: LoggingLevel = 'debug';

/** After close, how long to wait for the upstream's process to be gone (its process group gets SIGKILL by 2.5 s). */
export const SESSION_EXIT_WAIT_MS = 10_000;

/** 1 s: how long a failed start waits for the rest of the upstream's stderr once its process is gone. */
const STDERR_END_WAIT_MS = 1_000;

/** A tools/call result as the SDK is asked to check it: not at all, so that what it was can be quoted (checkToolResult). */
const ANY_RESULT = z.unknown();

export interface SessionOptions extends SessionClientsOptions {
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
  /** Where a stdio upstream's process group is kept until it has ended: the hub's, which its shutdown sweeps. */
  readonly processGroups: LiveGroups;
  /** How the entry is connected; absent, connectUpstream (its transport as configured). */
  readonly connect?: Connector;
  /** Opened with the 2025 handshake alone, without the revision probe (revision.ts: skipsProbeNext). */
  readonly unprobed?: boolean;
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
  private skillsClient: SkillsClient | undefined;
  private readonly log: Logger;

  private constructor(
    private readonly spec: UpstreamSpec,
    private readonly client: Client,
    readonly kind: TransportKind,
    private readonly ended: Promise<void>,
    private readonly options: SessionOptions,
    private readonly signIn: SignInContext | undefined,
  ) {
    this.log = Logger.of(options.log).child(`upstream "${spec.name}"`);
  }

  get name(): string {
    return this.spec.name;
  }

  /** Connects and lists the tools; a failure closes whatever was opened and names the reason. */
  static async open(spec: UpstreamSpec, options: SessionOptions): Promise<UpstreamSession> {
    const log = Logger.of(options.log).child(`upstream "${spec.name}"`);
    const stderr = new StderrLines(`[${spec.name}] `, options.log);
    const clients = new SessionClients(spec.name, options);
    let connected;
    let signIn: SignInContext | undefined;
    try {
      signIn = await prepareSignIn(spec, options);
      connected = await (options.connect ?? connectUpstream)(spec, {
        createClient: clients.create,
        stderr,
        timeoutMs: options.startTimeoutMs,
        signal: options.signal,
        maxMessageBytes: options.maxMessageBytes,
        log: options.log,
        processGroups: options.processGroups,
        ...(options.closeGraceMs !== undefined ? { closeGraceMs: options.closeGraceMs } : {}),
        ...(options.unprobed === true ? { unprobed: true } : {}),
        ...(signIn?.provider !== undefined ? { authProvider: signIn.provider } : {}),
        ...(signIn !== undefined ? { refusals: signIn.refusals } : {}),
      });
    } catch (error) {
      await Promise.all(clients.allEnded().map((ended) => settleWithin(ended, { ms: SESSION_EXIT_WAIT_MS })));
      // Its last words explain the failure: read them to the end (a process's exit can come first).
      await settleWithin(stderr.ended(), { ms: STDERR_END_WAIT_MS });
      throw new UpstreamStartError(spec, error, stderr.tail, options, signIn);
    }
    log.debug(`speaks MCP ${revisionOf(connected.client)}`);
    const end = clients.endOf(connected.client);
    const session = new UpstreamSession(spec, connected.client, connected.kind, end.ended, options, signIn);
    clients.listener = session.listener();
    session.lost = end.hasEnded;
    session.progress.attach(connected.transport);
    if (session.speaksCurrentRevision) carryTaskAnswers(connected.transport);
    if (connected.kind !== 'stdio') {
      session.liveness = watchLiveness(connected.transport, {
        intervalMs: options.pingIntervalMs,
        timeoutMs: options.pingTimeoutMs,
        ping: (timeout) => session.ping(timeout),
        // Its calls in flight fail now, as "stopped answering", and its HTTP streams are let go.
        onDead: (reason) => session.giveUp(reason, `closing upstream "${spec.name}", which stopped answering`),
      });
    }
    try {
      session.listenForChanges();
      session.tools = await session.listTools(options.signal);
      if (session.lost) throw new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
      // Its tools are what it is for: resources it can't list leave it serving them, and say so.
      session.resources = await session.listResources(options.signal).catch((error: unknown) => {
        if (session.lost) throw error;
        log.info(`listing its resources failed, so none are offered: ${messageWithCauses(error)}`);
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

  /** The upstream's skills (the MCP Skills extension), when it declared the extension; made once. */
  skills(): SkillsClient | undefined {
    if (this.skillsClient !== undefined) return this.skillsClient;
    const extensions = (this.capabilities as { extensions?: Record<string, unknown> }).extensions;
    if (extensions?.[SKILLS_EXTENSION_ID] === undefined) return undefined;
    this.skillsClient = new SkillsClient(this.client);
    return this.skillsClient;
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

  /** Every page of `tools/list` (tool-pages.ts). */
  listTools(signal?: AbortSignal): Promise<ListedTool[]> {
    return listToolPages(this.client, {
      server: this.name,
      checkParamHeaders: this.mirrorsParamHeaders(),
      timeoutMs: this.options.startTimeoutMs,
      log: this.options.log,
      ...(signal !== undefined ? { signal } : {}),
    });
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
    meta?: Readonly<Record<string, string>>,
  ): Promise<CallToolResult> {
    const result = await this.sendChecked(scriptName, signal, () =>
      this.sendToolCall(tool, scriptName, args, signal, onProgress, meta),
    );
    return checkToolResult(result, this.name, scriptName);
  }

  /** Whether it speaks 2026-07-28, where it asks for input by answering `input_required` itself (round-trip.ts). */
  get speaksCurrentRevision(): boolean {
    return this.client.getProtocolEra() === 'modern';
  }

  /** Whether it makes tasks itself: it speaks 2026-07-28 and declared the Tasks extension (upstream-task.ts). */
  get makesTasks(): boolean {
    const extensions = (this.capabilities as { extensions?: Record<string, unknown> }).extensions;
    return this.speaksCurrentRevision && extensions?.[TASKS_EXTENSION] !== undefined;
  }

  /**
   * As callTool, one round of a call passed through (round-trip.ts): the client's answers go with
   * it, and the upstream's `input_required` comes back as it sent it, not fulfilled here; so does
   * its task, when the round declared the Tasks extension (a task otherwise is a wrong answer).
   */
  async callToolRound(
    tool: string,
    scriptName: string,
    args: Record<string, unknown>,
    round: UpstreamRound,
    signal: AbortSignal | undefined,
    onProgress: ((progress: Progress) => void) | undefined,
    meta?: Readonly<Record<string, string>>,
  ): Promise<CallToolResult | UpstreamInputRequired | UpstreamTask> {
    const result = await this.sendChecked(scriptName, signal, () =>
      this.sendToolCall(tool, scriptName, args, signal, onProgress, meta, round),
    );
    const task = carriedTaskOf(result);
    if (task === undefined) return inputRequiredOf(result) ?? checkToolResult(result, this.name, scriptName);
    if (typeof task === 'string') throw new UpstreamAnswerError(this.name, scriptName, task);
    if (round.tasks !== true) {
      throw new UpstreamAnswerError(
        this.name,
        scriptName,
        `it answered with a task, though the call did not declare the ${TASKS_EXTENSION} extension`,
      );
    }
    return task;
  }

  /**
   * `tasks/get`, `tasks/update` and `tasks/cancel` of a task it made of the call `scriptName`
   * (upstream-task.ts), each declaring the Tasks extension and failing as a call does. A cancel is
   * sent on its own (the call's signal has aborted), within UPSTREAM_TASK_CANCEL_WAIT_MS, and its failure logged.
   */
  taskRequests(scriptName: string): TaskRequests {
    const request = (method: string, params: Record<string, unknown>, signal: AbortSignal | undefined): Promise<unknown> =>
      this.sendChecked(scriptName, signal, () =>
        this.send(scriptName, signal, (options) =>
          this.client.request(
            { method, params: roundParams(params, { tasks: true }, this.options.capabilities) },
            ANY_RESULT,
            options,
          ),
        ),
      );
    return {
      get: (taskId, signal) => request('tasks/get', { taskId }, signal),
      update: (taskId, inputResponses, signal) => request('tasks/update', { taskId, inputResponses }, signal),
      cancel: (taskId) => {
        request('tasks/cancel', { taskId }, timeoutSignal(UPSTREAM_TASK_CANCEL_WAIT_MS)).catch((error: unknown) =>
          this.log.warn(
            `tasks/cancel of its task ${JSON.stringify(taskId)} (${scriptName}) failed, so it may run on: ${messageWithCauses(error)}`,
          ),
        );
      },
    };
  }

  /** One round of a `prompts/get` passed through, as callToolRound; the result checked as forward's is. */
  async getPromptRound(
    params: Record<string, unknown>,
    round: UpstreamRound,
    signal: AbortSignal | undefined,
  ): Promise<GetPromptResult | UpstreamInputRequired> {
    let result: unknown;
    try {
      result = await this.client.request(
        { method: 'prompts/get', params: roundParams(params, round, this.options.capabilities) },
        ANY_RESULT,
        { timeout: SDK_CALL_TIMEOUT_MS, allowInputRequired: true, ...(signal ? { signal } : {}) },
      );
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw error;
    }
    const asked = inputRequiredOf(result);
    if (asked !== undefined) return asked;
    const checked = specTypeSchemas.GetPromptResult['~standard'].validate(result);
    if (checked.issues === undefined) return checked.value;
    throw new UpstreamAnswerError(this.name, 'prompts/get', describeIssues(checked.issues, result), 'a prompts/get result');
  }

  /**
   * Sends once the upstream is known to be alive (a remote one idle for a while is pinged first),
   * and once more after a sign-in the client was offered (sign-in-retry.ts).
   */
  private async sendChecked<T>(scriptName: string, signal: AbortSignal | undefined, send: () => Promise<T>): Promise<T> {
    const pinged = this.liveness?.beforeUse();
    if (pinged !== undefined) {
      await pinged.catch((error: Error) => {
        throw new ToolRefusedError('UPSTREAM_DOWN', scriptName, `upstream "${this.name}" is down: ${error.message}`);
      });
    }
    return sendWithSignInRetry(send, {
      spec: this.spec,
      signIn: this.signIn,
      auth: this.options.auth,
      scriptName,
      signal,
      // Its sign-in no longer holds (revoked, expired past renewal): down with the reason, reconnected with backoff.
      onSignInLost: (reason) => this.giveUp(reason, `closing upstream "${this.name}" after its sign-in was lost`),
    });
  }

  private async sendToolCall(
    tool: string,
    scriptName: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    onProgress: ((progress: Progress) => void) | undefined,
    meta: Readonly<Record<string, string>> | undefined,
    round?: UpstreamRound,
  ): Promise<unknown> {
    const progress = onProgress === undefined ? undefined : this.progress.register(onProgress);
    // `meta`: the call's trace context (SEP-414's `traceparent`), beside the progress token; in
    // 2026-07-28 a server logs on a request only when it names a level, so ours asks for them all.
    const _meta = {
      ...meta,
      ...(this.speaksCurrentRevision ? { [LOG_LEVEL_META_KEY]: UPSTREAM_LOG_LEVEL } : {}),
      ...(progress !== undefined ? { progressToken: progress.token } : {}),
    };
    const sent = { name: tool, arguments: args, ...(Object.keys(_meta).length > 0 ? { _meta } : {}) };
    const params = round === undefined ? sent : roundParams(sent, round, this.options.capabilities);
    const headers = { ...this.traceHeadersOf(meta), ...this.paramHeadersOf(tool, args) };
    try {
      return await this.send(scriptName, signal, (options) =>
        this.client.request({ method: 'tools/call', params }, ANY_RESULT, {
          ...options,
          // A round passed through: the upstream's input_required is the answer, not something to fulfil here.
          ...(round !== undefined ? { allowInputRequired: true } : {}),
          ...(Object.keys(headers).length > 0 ? { headers } : {}),
        }),
      );
    } finally {
      progress?.release();
    }
  }

  /**
   * In 2026-07-28, opens the stream its list changes come on (change-listen.ts), before the
   * listing so a change made meanwhile is heard. Not waited for: a start doesn't hang on a stream
   * a proxy holds back; closing the client ends it. Its tools serve without it, and the log says
   * what is lost.
   */
  private listenForChanges(): void {
    const { startTimeoutMs, signal } = this.options;
    listenForChanges(this.client, { timeoutMs: startTimeoutMs, signal }).catch((error: unknown) => {
      if (this.lost || this.closing) return;
      this.log.warn(
        `subscriptions/listen failed, so its list changes are not heard until it restarts: ${messageWithCauses(error)}`,
      );
    });
  }

  /** Is it still there: `ping`, which 2026-07-28 dropped; there `server/discover`, which needs no session either. */
  private async ping(timeout: number): Promise<void> {
    if (this.client.getProtocolEra() === 'modern') await this.client.discover({ timeout });
    else await this.client.ping({ timeout });
  }

  /** Over Streamable HTTP in 2026-07-28, tool parameters marked `x-mcp-header` are mirrored in headers (SEP-2243). */
  private mirrorsParamHeaders(): boolean {
    return this.kind === 'http' && this.client.getProtocolEra() === 'modern';
  }

  /** A call's `Mcp-Param-*` headers (param-headers.ts), from the tool's schema as listed. */
  private paramHeadersOf(tool: string, args: Record<string, unknown>): Record<string, string> {
    if (!this.mirrorsParamHeaders()) return {};
    const scan = scanParamHeaders(this.tools.find((listed) => listed.name === tool)?.inputSchema);
    if (!scan.valid || scan.headers.length === 0) return {};
    return paramHeaderValues(scan.headers, args);
  }

  /**
   * Over Streamable HTTP, the call's trace context as W3C Trace Context headers too (`traceparent`,
   * `tracestate`), for proxies and servers that trace by header. The SSE transport sends no
   * per-request headers: there it travels in `_meta` alone.
   */
  private traceHeadersOf(meta: TraceMeta | undefined): Record<string, string> {
    return meta !== undefined && this.kind === 'http' ? traceHeaders(meta) : {};
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
      throw translateCallFailure(error, { server: this.name, scriptName, signal, lost: this.lostHow() });
    }
  }

  /** How it ended under a call in flight; undefined while it is up. */
  private lostHow(): LostHow | undefined {
    if (!this.lost && !this.closing) return undefined;
    if (this.unanswered !== undefined) return 'stopped answering';
    if (this.closing) return 'was closed';
    return this.kind === 'stdio' ? 'exited' : 'disconnected';
  }

  /** It can't go on (it stopped answering, or its sign-in was lost): lost with the reason, and its client closed (`closing` names that in the log, should it fail). */
  private giveUp(reason: string, closing: string): void {
    this.unanswered = reason;
    this.handleEnd();
    void this.client.close().catch(logFailure(closing, this.options.log));
  }

  /** Tells a 2025 upstream; 2026-07-28 has no such notification (an upstream asks for the roots when it needs them). */
  async notifyRootsListChanged(): Promise<void> {
    if (this.client.getProtocolEra() === 'modern') return;
    await this.client.sendRootsListChanged();
  }

  /** Closes the client and, for stdio, waits until the process is gone. */
  async close(): Promise<void> {
    this.closing = true;
    this.liveness?.stop();
    await this.client.close().catch(logFailure(`closing upstream "${this.name}"`, this.options.log));
    await settleWithin(this.ended, { ms: SESSION_EXIT_WAIT_MS });
  }

  /** What its clients tell it: the upstream's news, from this session's own client only. */
  private listener(): ClientListener {
    const ours = (client: Client): boolean => client === this.client;
    return {
      toolsChanged: () => this.onToolsChanged?.(),
      resourcesChanged: () => this.onResourcesChanged?.(),
      notice: (notice) => this.onPassthroughNotice?.(notice),
      ended: (client) => {
        if (ours(client)) this.handleEnd();
      },
      // Before it is up, a transport error is the start failure, reported once as such; once it is
      // lost or closing, what its teardown aborts is no news.
      error: (client, error) => {
        if (ours(client) && !this.lost && !this.closing) this.log.warn(error.message);
      },
    };
  }

  private handleEnd(): void {
    if (this.lost) return;
    this.lost = true;
    this.liveness?.stop();
    if (!this.closing) this.onLost?.(this.unanswered);
  }
}
