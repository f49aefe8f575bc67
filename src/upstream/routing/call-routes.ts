/**
 * Routing a script's tool call or resource read to its upstream, or refusing it before anything
 * is sent: unknown, denied by the config, or its upstream not ready (starting, down, closed).
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type Progress,
  type ReadResourceResult,
} from '@modelcontextprotocol/client';
import type { Catalog, CatalogTool } from '../../catalog/types.js';
import { ToolRefusedError } from '../../support/errors.js';
import { Logger, type Log } from '../../support/log.js';
import type { CallOrigin, CallOrigins } from './call-origins.js';
import type { ResourceRoutes } from '../passthrough/resource-routes.js';
import type { UpstreamInputRequired, UpstreamRound } from './round-trip.js';
import { fulfilRounds, type RoundAsk } from './input-rounds.js';
import { isUpstreamTask, type UpstreamTask } from './task-answer.js';
import { followUpstreamTask } from './upstream-task.js';
import type { UpstreamSession } from '../connection/session.js';
import { serverForName, TOOL_NAME_SEPARATOR } from '../tools/tool-names.js';
import type { Upstream } from '../connection/upstream.js';
import type { CallCaller } from '../../telemetry/observe-call.js';
import type { TraceMeta } from '../../telemetry/telemetry.js';

/** Per call: where the upstream's `notifications/progress` for this call go, and whose call it is. */
export interface CallContext {
  readonly onProgress?: (progress: Progress) => void;
  /** The session making the call: what the upstream asks or logs while it runs goes there (call-origins.ts). */
  readonly origin?: CallOrigin;
  /** Whose call it is in that session (a script's id, an exposed call's key): what the upstream asks is that one's. */
  readonly asker?: string;
  /** Who makes the call, for its span and audit line (src/telemetry/); absent: no script, no parent span. */
  readonly caller?: CallCaller;
  /** Sent in the request's `_meta` (the call's `traceparent`). */
  readonly meta?: TraceMeta;
}

export class CallRoutes {
  private byName = new Map<string, CatalogTool>();
  private readonly byServer: ReadonlyMap<string, Upstream>;
  private readonly log: Logger;

  constructor(
    private readonly upstreams: readonly Upstream[],
    private readonly resources: ResourceRoutes,
    private readonly origins: CallOrigins,
    log: Log,
  ) {
    this.log = Logger.of(log);
    this.byServer = new Map(upstreams.map((upstream) => [upstream.name, upstream]));
  }

  /** The catalog calls are routed by from now on. */
  setCatalog(catalog: Catalog): void {
    this.byName = new Map(catalog.tools.map((tool) => [tool.name, tool]));
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

  /** The listed tool of this name, denied ones included. */
  toolNamed(name: string): CatalogTool | undefined {
    return this.byName.get(name);
  }

  /** As UpstreamHub.callTool. */
  callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    context: CallContext,
  ): Promise<CallToolResult> {
    return this.sendTo(name, context, (session, tool) =>
      whenSent(sentFor(tool, args, context), (sent) => {
        if (!session.speaksCurrentRevision) {
          return session.callTool(tool.upstreamName, name, sent, signal, context.onProgress, context.meta);
        }
        // It asks by answering input_required: each request goes to the caller's client as this call's own.
        const ask = this.askerWithin(tool.server, context, signal);
        const of = { server: tool.server, tool: name };
        // One that makes tasks may answer with one (its listing says nothing of which tools may): followed here.
        const tasks = session.makesTasks;
        return fulfilRounds(
          (round) =>
            session.callToolRound(
              tool.upstreamName,
              name,
              sent,
              tasks ? { ...round, tasks } : round,
              signal,
              context.onProgress,
              context.meta,
            ),
          ask,
          of,
        ).then((answer) => {
          if (!isUpstreamTask(answer)) return answer;
          this.log
            .child(`upstream "${tool.server}"`)
            .debug(`tools/call ${tool.upstreamName} answered with task ${answer.taskId}; following it`);
          return followUpstreamTask(answer, session.taskRequests(name), ask, of, signal);
        });
      }),
    );
  }

  /**
   * As UpstreamHub.followTask: a task the tool's upstream made of a round passed through
   * (callToolRound), followed until it ends, what it asks meanwhile asked as the context's call's.
   */
  followTask(name: string, task: UpstreamTask, signal: AbortSignal | undefined, context: CallContext): Promise<CallToolResult> {
    return this.sendTo(name, context, (session, tool) =>
      followUpstreamTask(
        task,
        session.taskRequests(name),
        this.askerWithin(tool.server, context, signal),
        { server: tool.server, tool: name },
        signal,
      ),
    );
  }

  /** askerFor, each request also ended by the call's `signal`. */
  private askerWithin(server: string, context: CallContext, signal: AbortSignal | undefined): RoundAsk {
    const ask = this.askerFor(server, context);
    return (request, roundSignal) => ask(request, signal === undefined ? roundSignal : AbortSignal.any([signal, roundSignal]));
  }

  /**
   * How a call's upstream requests reach its caller's client: through its session's relay (which
   * passes the answers as the session's tokens say), named as its own.
   */
  private askerFor(server: string, context: CallContext): RoundAsk {
    return (request, signal) => {
      const routed = context.origin !== undefined ? { origin: context.origin } : this.origins.routeRequest(server, request);
      if ('refused' in routed) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, routed.refused);
      return routed.origin.relay(server, request, { signal, ...(context.asker !== undefined ? { script: context.asker } : {}) });
    };
  }

  /** As UpstreamHub.callToolRound. */
  callToolRound(
    name: string,
    args: Record<string, unknown>,
    round: UpstreamRound,
    signal: AbortSignal | undefined,
    context: CallContext,
  ): Promise<CallToolResult | UpstreamInputRequired | UpstreamTask> {
    // The client's answers pass as its arguments do; the upstream's own requestState, as it wrote it.
    return this.sendTo(name, context, (session, tool) =>
      whenSent(sentFor(tool, [args, round.inputResponses] as const, context), ([sentArgs, responses]) =>
        session.callToolRound(
          tool.upstreamName,
          name,
          sentArgs,
          responses === undefined ? round : { ...round, inputResponses: responses },
          signal,
          context.onProgress,
          context.meta,
        ),
      ),
    );
  }

  /** Whether the tool's upstream is up and speaks 2026-07-28 (it answers input_required itself). */
  speaksCurrentRevision(name: string): boolean {
    return this.readySessionOf(name)?.speaksCurrentRevision === true;
  }

  /** Whether the tool's upstream is up and makes tasks itself (UpstreamSession.makesTasks). */
  makesTasks(name: string): boolean {
    return this.readySessionOf(name)?.makesTasks === true;
  }

  private readySessionOf(name: string): UpstreamSession | undefined {
    const tool = this.byName.get(name);
    return tool === undefined ? undefined : this.byServer.get(tool.server)?.readySession();
  }

  /** Sends a call of the tool to its upstream, or refuses it before anything is sent (unknown, denied, not ready). */
  private async sendTo<T extends object>(
    name: string,
    context: CallContext,
    send: (session: UpstreamSession, tool: CatalogTool) => Promise<T>,
  ): Promise<T> {
    const tool = this.byName.get(name);
    if (tool === undefined) throw this.refuseUnknown(name);
    const upstream = this.upstreamOf(tool.server);
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
    const call = this.origins.track(upstream.name, context.origin, context.asker, () => send(session, tool));
    const debug = (how: string): void =>
      this.log.child(`upstream "${tool.server}"`).debug(`tools/call ${tool.upstreamName} ${how} in ${Date.now() - started} ms`);
    call.then(
      (result) => debug(answeredHow(result)),
      (error: unknown) => debug(`failed (${error instanceof Error ? error.message : String(error)})`),
    );
    return call;
  }

  /** As UpstreamHub.readResource. */
  async readResource(
    uri: string,
    label: string,
    signal: AbortSignal | undefined,
    context: CallContext,
  ): Promise<ReadResourceResult> {
    const route = this.resources.route(uri);
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
    const upstream = this.upstreamOf(route.server);
    const session = upstream.readySession();
    if (session === undefined) throw refuseNotReady(label, upstream);
    return this.origins.track(upstream.name, context.origin, context.asker, () => session.readResource(uri, label, signal));
  }

  private upstreamOf(server: string): Upstream {
    const upstream = this.byServer.get(server);
    if (upstream === undefined) throw new Error(`a route to upstream "${server}", which is not configured`);
    return upstream;
  }

  /**
   * A name no listed tool has. If it belongs to an upstream that has never listed its tools (still
   * starting, or down since start), say that, rather than that no such tool exists.
   */
  private refuseUnknown(name: string): ToolRefusedError {
    const server = serverForName(name, [...this.byServer.keys()]);
    const upstream = server === undefined ? undefined : this.byServer.get(server);
    if (upstream !== undefined && upstream.tools === undefined) return refuseNotReady(name, upstream);
    return new ToolRefusedError('TOOL_UNKNOWN', name, 'no upstream tool has this name');
  }
}

/** What the tool's upstream receives of what the call carries: as it is, or through its caller's tokens (call-origins.ts). */
function sentFor<T>(tool: CatalogTool, value: T, context: CallContext): Promise<T> | T {
  const tokens = context.origin?.tokens;
  return tokens === undefined ? value : tokens.argumentsFor(tool.server, value);
}

/** Sends at once what is at hand, so a call without tokens goes out in the turn it is made; else once it is ready. */
function whenSent<T, R>(value: T | Promise<T>, send: (value: T) => Promise<R>): Promise<R> {
  return value instanceof Promise ? value.then(send) : send(value);
}

function answeredHow(result: object): string {
  if ('resultType' in result && result.resultType === 'input_required') return 'answered input_required';
  if ('resultType' in result && result.resultType === 'task') return 'answered with a task';
  return 'isError' in result && result.isError === true ? 'answered with isError' : 'answered';
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
