/**
 * 2026-07-28 requests over HTTP: no session and no `initialize`; each request is served by a
 * Server of its own from the surface every client gets (src/mcp/server-surface.ts), through the
 * SDK's `createMcpHandler` (strict: 2025 requests go to our sessions instead, mcp-endpoint.ts).
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
import type { SkillLine } from '../catalog/description.js';
import { refusalAnswer } from '../scripts/answer.js';
import { codeExecutionTool } from '../mcp/code-execution-tool.js';
import { exposedTools, listedTool } from '../mcp/exposed-tools.js';
import { codeExecutionWithInput, requestStateCodec } from '../mcp/input-required.js';
import { ModernCaller } from '../mcp/modern-caller.js';
import { ScriptOwner, type ScriptOwnerOptions } from '../mcp/script-owner.js';
import { CallerTasks } from '../mcp/caller-tasks.js';
import type { HttpSessionsOptions } from './sessions.js';
import { buildSurface } from '../mcp/server-surface.js';
import { callTool } from '../mcp/tool-calls.js';
import type { TraceContext } from '../telemetry/telemetry.js';

type SkillsCaller = NonNullable<ScriptOwnerOptions['callSkills']>;

/** The principal of a 2026-07-28 caller when no tokens file names one: everyone who holds the one token (or none). */
export const SHARED_PRINCIPAL = 'shared';

/** What a 2025 session is given; the scripts' skills calls are given the principal instead of the session id. */
export type ModernLaneOptions = HttpSessionsOptions;

interface Caller {
  readonly owner: ScriptOwner;
  readonly modern: ModernCaller;
  readonly tasks: CallerTasks;
}

export class ModernLane {
  readonly handler: McpHttpHandler;
  private readonly callers = new Map<string, Caller>();
  private readonly codec = requestStateCodec((ctx) => principalOf(ctx.http?.authInfo));
  /** The saved skills as last read, for the description and searchTools. */
  private skillLines: readonly SkillLine[] = [];
  /** The tools as last listed to anyone, as JSON: a catalog change that leaves them as they are says nothing. */
  private listedTools: string | undefined;
  private closing = false;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(private readonly options: ModernLaneOptions) {
    this.handler = createMcpHandler(({ authInfo }) => this.serverFor(principalOf(authInfo)), {
      legacy: 'reject',
      maxRequestBodySize: options.settings.maxMessageBytes,
      onerror: (error) => options.log(`codemode-mcp: ${error.message}`, 'warn'),
    });
    const { hub } = options;
    const notify = this.handler.notify;
    this.unsubscribe.push(hub.events.on('catalog-changed', () => this.catalogChanged()));
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
    const { hub, settings, supply, callSkills } = this.options;
    const modern = new ModernCaller(`principal ${principal}`);
    const owner = new ScriptOwner({
      hub,
      settings,
      supply: () => (this.closing ? undefined : supply),
      state: { store: this.options.state, principal },
      ...(this.options.fetcher !== undefined ? { fetcher: this.options.fetcher } : {}),
      ...(callSkills !== undefined ? { callSkills: this.skillsSaving(callSkills(principal)) } : {}),
      savedSkills: () => this.skillLines,
      origin: modern.origin,
      label: `principal ${principal}`,
      ...(this.options.instanceId !== undefined ? { instance: this.options.instanceId } : {}),
      sendLog: (params) => modern.sendLog(params),
    });
    modern.attributeTo(() => owner.soleCaller());
    const tasks = new CallerTasks({
      inputs: modern.inputs,
      scriptLifetimeMs: settings.scriptLifetimeMs,
      ...(this.options.instanceId !== undefined ? { instance: this.options.instanceId } : {}),
    });
    const caller = { owner, modern, tasks };
    this.callers.set(principal, caller);
    return caller;
  }

  private serverFor(principal: string) {
    const { hub, settings, startup, log, version, skills } = this.options;
    return buildSurface({
      hub,
      version,
      declared: hub.offered(),
      startup,
      ...(skills !== undefined ? { skills } : {}),
      listTools: async () => {
        await this.readSavedSkills();
        const tools = this.listTools();
        this.listedTools = JSON.stringify(tools);
        return tools;
      },
      callTool: (name, args, ctx, trace) => {
        const caller = this.callerOf(principal);
        const { owner, modern, tasks } = caller;
        const deps = {
          hub,
          settings,
          startup,
          log,
          origin: () => owner.origin,
          codeExecution: (input: unknown, context: ServerContext, span?: TraceContext) =>
            this.codeExecution(caller, input, context, span),
          modern: {
            tasks,
            inputs: modern.inputs,
            codec: this.codec,
            track: <T>(key: string, call: () => Promise<T>) => owner.track(key, call),
          },
        };
        return modern.during(ctx, () => callTool(deps, name, args, ctx, trace));
      },
      requestState: { verify: (state, ctx) => this.codec.verify(state, ctx) },
      passThrough: this.codec,
      tasks: () => (this.closing ? undefined : this.callerOf(principal).tasks),
    }).server;
  }

  private async codeExecution(
    { owner, modern, tasks }: Caller,
    args: unknown,
    ctx: ServerContext,
    trace: TraceContext | undefined,
  ) {
    await this.options.startup();
    const scripts = owner.scriptsNow();
    if (scripts === undefined) return refusalAnswer('the server is shutting down');
    const routed = this.options.instanceId !== undefined;
    return codeExecutionWithInput({ scripts, inputs: modern.inputs, codec: this.codec, tasks, routed }, args, ctx, trace);
  }

  /** The inputSchema of a tool as listed now, for its parameter headers (param-headers.ts). */
  inputSchemaOf(name: string): Tool['inputSchema'] | undefined {
    return this.listTools().find((tool) => tool.name === name)?.inputSchema;
  }

  private listTools(): Tool[] {
    const { hub, settings } = this.options;
    const catalog = hub.catalog();
    return [
      codeExecutionTool(catalog, settings, this.skillLines),
      ...exposedTools(catalog.tools, settings.expose).map(listedTool),
    ];
  }

  private async readSavedSkills(): Promise<void> {
    const savedSkills = this.options.savedSkills;
    if (savedSkills === undefined) return;
    try {
      this.skillLines = await savedSkills();
    } catch (error) {
      this.options.log(
        `codemode-mcp: the saved skills could not be listed for the description: ${(error as Error).message}`,
        'warn',
      );
    }
  }

  /** After a save, the saved skills are read again, and listeners told when the description changed. */
  private skillsSaving(callSkills: SkillsCaller): SkillsCaller {
    return async (request, signal) => {
      const answer = await callSkills(request, signal);
      if (request.call === 'skills.save') {
        await this.readSavedSkills();
        this.catalogChanged();
      }
      return answer;
    };
  }

  private catalogChanged(): void {
    if (this.listedTools === undefined || this.closing) return;
    const now = JSON.stringify(this.listTools());
    if (now === this.listedTools) return;
    this.listedTools = now;
    this.handler.notify.toolsChanged();
  }

  /** Every principal's scripts stop; resolves with how each running one ended, by principal. */
  async close(): Promise<string[]> {
    this.closing = true;
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
    const ended = await Promise.all(
      [...this.callers].map(async ([principal, { owner, modern }]) => {
        modern.inputs.failAll('the server is shutting down');
        return (await owner.close()).map(({ id, status }) => `${id} ${status} (principal ${principal})`);
      }),
    );
    await this.handler.close();
    return ended.flat();
  }
}

/** The principal the guard found for the request's bearer token (guard.ts), or the shared one. */
export function principalOf(authInfo: AuthInfo | undefined): string {
  return authInfo?.clientId ?? SHARED_PRINCIPAL;
}
