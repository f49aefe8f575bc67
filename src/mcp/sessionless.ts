/**
 * 2026-07-28 requests over HTTP: no session and no `initialize`; each request is served by a
 * Server of its own from the surface every client gets (server-surface.ts), through the SDK's
 * `createMcpHandler` (strict: 2025 requests go to sessions instead, src/http/mcp-endpoint.ts).
 * Scripts outlive requests, so they belong to the caller's principal: the name its bearer token
 * gives in the tokens file, or one principal for every caller when there is none. `wait`, `stop`
 * and `list` reach exactly that principal's scripts. List changes go out on `subscriptions/listen`.
 */
import {
  createMcpHandler,
  type AuthInfo,
  type McpHttpHandler,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import type { SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import type { Settings } from '../config/settings.js';
import { SHARED_PRINCIPAL } from '../state/state-store.js';
import type { ChildSupply } from '../scripts/child-supply.js';
import type { Log } from '../support/log.js';
import type { TraceContext } from '../telemetry/telemetry.js';
import type { UpstreamHub } from '../upstream/hub.js';
import { CallerTasks } from './caller-tasks.js';
import { refusalAnswer } from './code-execution/answer.js';
import { callCodeExecution } from './code-execution/call.js';
import type { HostApis } from './host-apis.js';
import type { ApprovalPage } from '../approvals/page/approval-page.js';
import { InputRequiredCaller } from './input-required-caller.js';
import { requestStateCodec } from './request-state.js';
import { ScriptOwner } from './script-owner.js';
import { buildSurface } from './server-surface.js';
import type { ListingWatch, ToolListing } from './tool-listing.js';
import { callTool } from './tool-calls.js';
import { InFlight } from '../support/in-flight.js';
import { withTokens } from './tokens/origin-tokens.js';
import type { ScopeTokens } from '../tokenize/tokenizer.js';

/** What every HTTP client is served with (src/http/sessions.ts takes the same). */
export interface SessionlessOptions {
  readonly hub: UpstreamHub;
  readonly supply: ChildSupply;
  readonly settings: Settings;
  readonly version: string;
  readonly startup: () => Promise<void>;
  readonly log: Log;
  /** Every host API a script reaches (host-apis.ts). */
  readonly apis: HostApis;
  readonly listing: ToolListing;
  /** The saved skills, served through the Skills extension. */
  readonly skills?: SkillsExtension;
  /** Prefixes every session id and script id as `<instanceId>.`. */
  readonly instanceId: string | undefined;
  /** The approval page (issue 46), a route of the HTTP server. */
  readonly approvalPage?: ApprovalPage;
}

/** One principal's scripts, and its ways back to its client. */
interface Caller {
  readonly owner: ScriptOwner;
  readonly asking: InputRequiredCaller;
  readonly tasks: CallerTasks;
  /** The principal's tokens, when tokenize is on. */
  readonly tokens: ScopeTokens | undefined;
}

export class Sessionless {
  readonly handler: McpHttpHandler;
  private readonly callers = new Map<string, Caller>();
  private readonly codec = requestStateCodec((ctx) => principalOf(ctx.http?.authInfo));
  /** The tools as last listed to any caller: one change is told once, on `subscriptions/listen`. */
  private readonly listed: ListingWatch;
  private closing = false;
  private readonly unsubscribe: Array<() => void> = [];
  /** Every tool call not yet answered: the close waits for their answers (an open wait's ending). */
  private readonly answering = new InFlight();

  constructor(private readonly options: SessionlessOptions) {
    this.handler = createMcpHandler(({ authInfo }) => this.serverFor(principalOf(authInfo)), {
      legacy: 'reject',
      maxRequestBodySize: options.settings.maxMessageBytes,
      onerror: (error) => options.log(`codemode-mcp: ${error.message}`, 'warn'),
    });
    const { hub } = options;
    const notify = this.handler.notify;
    this.listed = options.listing.watch(() => {
      if (!this.closing) notify.toolsChanged();
    });
    this.unsubscribe.push(() => this.listed.close());
    this.unsubscribe.push(hub.events.on('resources-changed', () => notify.resourcesChanged()));
    this.unsubscribe.push(
      hub.events.on('notice', (notice) => {
        if (notice.kind === 'prompts_changed') notify.promptsChanged();
        else if (notice.kind === 'resource_updated') notify.resourceUpdated(notice.uri);
        else {
          notify.promptsChanged();
          notify.resourcesChanged();
        }
      }),
    );
  }

  /** The principal's scripts, for whoever asks: made at its first request. */
  private callerOf(principal: string): Caller {
    const known = this.callers.get(principal);
    if (known !== undefined) return known;
    const { hub, settings, supply, instanceId } = this.options;
    const label = `principal ${principal}`;
    const asking = new InputRequiredCaller(label);
    const tokens = this.options.apis.tokensFor(principal);
    const owner = new ScriptOwner({
      hub,
      settings,
      supply: () => (this.closing ? undefined : supply),
      apis: this.options.apis,
      principal,
      savedSkills: () => this.options.listing.savedSkillsNow(),
      origin: withTokens(asking.origin, tokens),
      label,
      ...(instanceId !== undefined ? { instance: instanceId } : {}),
      log: this.options.log,
      sendLog: (params) => asking.sendLog(params),
      ...(this.options.approvalPage !== undefined ? { approvalPage: this.options.approvalPage } : {}),
    });
    asking.attributeTo(() => owner.soleCaller());
    const tasks = new CallerTasks({
      inputs: asking.inputs,
      scriptLifetimeMs: settings.scriptLifetimeMs,
      resultsMaxBytes: settings.taskResultsMaxBytes,
      ...(instanceId !== undefined ? { instance: instanceId } : {}),
    });
    const caller = { owner, asking, tasks, tokens };
    this.callers.set(principal, caller);
    return caller;
  }

  private serverFor(principal: string) {
    const { hub, settings, startup, log, version, skills, apis } = this.options;
    const tokens = apis.tokensFor(principal);
    return buildSurface({
      hub,
      version,
      declared: hub.offered(),
      startup,
      ...(skills !== undefined ? { skills } : {}),
      listTools: () => this.listed.list(),
      callTool: (name, args, ctx, trace) => {
        const caller = this.callerOf(principal);
        const { owner, asking, tasks } = caller;
        const deps = {
          hub,
          settings,
          startup,
          log,
          origin: () => owner.origin,
          codeExecution: (input: unknown, context: ServerContext, span?: TraceContext) =>
            this.codeExecution(caller, input, context, span),
          inputRequired: {
            tasks,
            inputs: asking.inputs,
            codec: this.codec,
            track: <T>(key: string, call: () => Promise<T>) => owner.track(key, call),
          },
        };
        return this.answering.track(() => asking.during(ctx, () => callTool(deps, name, args, ctx, trace)));
      },
      requestState: { verify: (state, ctx) => this.codec.verify(state, ctx) },
      passThrough: this.codec,
      tasks: () => (this.closing ? undefined : this.callerOf(principal).tasks),
      ...(tokens !== undefined ? { tokens } : {}),
    }).server;
  }

  private async codeExecution(
    { owner, asking, tasks, tokens }: Caller,
    args: unknown,
    ctx: ServerContext,
    trace: TraceContext | undefined,
  ) {
    await this.options.startup();
    // Read once before the first script if no tools/list has; then again at each list and save.
    await this.options.listing.savedSkills();
    const scripts = owner.scriptsNow();
    if (scripts === undefined) return refusalAnswer('the server is shutting down');
    const routed = this.options.instanceId !== undefined;
    return callCodeExecution(
      {
        scripts,
        maxYieldMs: this.options.settings.maxYieldMs,
        ...(tokens !== undefined ? { tokens } : {}),
        inputRequired: { inputs: asking.inputs, codec: this.codec, tasks, routed },
      },
      args,
      ctx,
      trace,
    );
  }

  /** The inputSchema of a tool as listed now, for its parameter headers (src/http/param-headers.ts). */
  inputSchemaOf(name: string): Tool['inputSchema'] | undefined {
    return this.options.listing.tools().find((tool) => tool.name === name)?.inputSchema;
  }

  /** Every principal's scripts stop; resolves with how each running one ended, by principal. */
  async close(): Promise<string[]> {
    this.closing = true;
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
    const ended = await Promise.all(
      [...this.callers].map(async ([principal, { owner, asking }]) => {
        asking.inputs.failAll('the server is shutting down');
        return (await owner.close()).map(({ id, status }) => `${id} ${status} (principal ${principal})`);
      }),
    );
    await this.answering.answered();
    await this.handler.close();
    return ended.flat();
  }
}

/** The principal the guard found for the request's bearer token (src/http/guard.ts), or the shared one. */
export function principalOf(authInfo: AuthInfo | undefined): string {
  return authInfo?.clientId ?? SHARED_PRINCIPAL;
}
