/**
 * What this server answers, defined once for both protocol revisions: a low-level SDK `Server`
 * with `tools/list` and `tools/call`, the upstreams' prompts, resources and completions passed
 * through, and the saved skills. A 2025 session (client-session.ts) builds one per connection and
 * adds what only a session has (subscriptions, relays, list changes); a 2026-07-28 request over
 * HTTP gets one of its own (sessionless.ts), as the SDK's factory shape wants.
 */
import {
  ResourceNotFoundError,
  type Server,
  type CallToolResult,
  type CacheHint,
  type RequestStateCodec,
  type InputRequiredResult,
  type ServerContext,
  type ServerOptions,
  type Tool,
} from '@modelcontextprotocol/server';
import type { SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import { passthroughCapabilities, type Offered } from '../upstream/passthrough/passthrough.js';
import type { UpstreamHub } from '../upstream/hub.js';
import { serveSkills, type SkillResources } from './serve-skills.js';
import { traceServerRequest } from '../telemetry/trace-server-request.js';
import { TracedServer } from './traced-server.js';
import type { ToolCallAnswer } from './tool-answer.js';
import type { CallerTasks } from './caller-tasks.js';
import { TASKS_CAPABILITY, serveTasks } from './tasks-extension.js';
import type { TraceContext } from '../telemetry/telemetry.js';
import { passThroughRound } from './exposed-pass-through.js';
import type { ResumeState } from './request-state.js';
import type { ScopeTokens } from '../tokenize/tokenizer.js';

export interface SurfaceDeps {
  readonly hub: UpstreamHub;
  readonly version: string;
  /** What the upstreams offered when the server was built: the capabilities the client is told of. */
  readonly declared: Offered;
  /** Settles when requests may be answered: the upstreams have started, or the startup wait is over. */
  readonly startup: () => Promise<void>;
  /** The saved skills, served through the MCP Skills extension (skills/list, skills/get, skill:// resources). */
  readonly skills?: SkillsExtension;
  readonly listTools: () => Promise<Tool[]>;
  /** `trace`: the request's span (telemetry), whose child a script or an upstream call is. */
  readonly callTool: (name: string, args: unknown, ctx: ServerContext, trace?: TraceContext) => Promise<ToolCallAnswer>;
  /** Checks and decodes a 2026-07-28 client's echoed `requestState` (input-required.ts). */
  readonly requestState?: ServerOptions['requestState'];
  /**
   * A 2026-07-28 caller's codec for `requestState` (input-required.ts): a prompt whose upstream
   * speaks that revision answers `input_required` through to the client (exposed-pass-through.ts).
   */
  readonly passThrough?: RequestStateCodec<ResumeState>;
  /** The caller's tasks (2026-07-28 only): the Tasks extension is offered and its methods served. */
  readonly tasks?: (ctx: ServerContext) => CallerTasks | undefined;
  /** The caller's tokens when tokenize is on: everything the Server sends the client is tokenized (tokens/). */
  readonly tokens?: ScopeTokens;
}

/**
 * How long a 2026-07-28 client may keep a list before asking again (SEP-2549), and for whom. The
 * lists change with the upstreams (a `notifications/*_list_changed` says so), so a minute bounds
 * how stale a client that hears no notification can be; `private`, since a bearer token may name
 * a principal and nothing here is promised alike for every caller.
 */
export const LIST_CACHE_HINT: CacheHint = { ttlMs: 60_000, cacheScope: 'private' };

export interface Surface {
  readonly server: Server;
  /** The `skill://` resources, read beside the upstreams' own; absent when skills are not served. */
  readonly skillResources: SkillResources | undefined;
}

export function buildSurface(deps: SurfaceDeps): Surface {
  const server = new TracedServer(
    { name: 'codemode-mcp', version: deps.version },
    {
      capabilities: {
        tools: { listChanged: true },
        logging: {},
        // Skill files are read as resources, so the capability is there even when no upstream offers one.
        ...(deps.skills !== undefined ? { resources: {} } : {}),
        ...passthroughCapabilities(deps.declared),
        ...(deps.tasks !== undefined ? TASKS_CAPABILITY : {}),
      },
      // Several upstreams changing at once make one notification.
      debouncedNotificationMethods: [
        'notifications/tools/list_changed',
        'notifications/prompts/list_changed',
        'notifications/resources/list_changed',
      ],
      cacheHints: {
        'tools/list': LIST_CACHE_HINT,
        'prompts/list': LIST_CACHE_HINT,
        'resources/list': LIST_CACHE_HINT,
        'resources/templates/list': LIST_CACHE_HINT,
      },
      ...(deps.requestState !== undefined ? { requestState: deps.requestState } : {}),
    },
    deps.tokens,
  );
  server.setRequestHandler('tools/list', async () => {
    await deps.startup();
    return { tools: await deps.listTools() };
  });
  // A task (CreateTaskResult) is a tools/call answer the SDK passes through on 2026-07-28 but does not type.
  server.setRequestHandler('tools/call', ({ params }, ctx) =>
    traceServerRequest(
      'tools/call',
      params,
      (trace) => deps.callTool(params.name, params.arguments, ctx, trace) as Promise<CallToolResult | InputRequiredResult>,
      {
        requestId: ctx.mcpReq.id,
        ...(ctx.sessionId !== undefined ? { sessionId: ctx.sessionId } : {}),
      },
    ),
  );
  if (deps.tasks !== undefined) serveTasks(server, deps.tasks);
  const skillResources = deps.skills === undefined ? undefined : serveSkills(server, deps.skills);
  servePassthrough(server, deps);
  serveResources(server, deps, skillResources);
  return { server, skillResources };
}

/** Prompts and completions passed through, for what the upstreams offered. */
function servePassthrough(server: Server, { hub, startup, declared, passThrough }: SurfaceDeps): void {
  if (declared.prompts) {
    server.setRequestHandler('prompts/list', async (request, ctx) => {
      await startup();
      return hub.prompts.list(request.params?.cursor, ctx.mcpReq.signal);
    });
    server.setRequestHandler('prompts/get', async (request, ctx) => {
      await startup();
      const { name, arguments: args } = request.params;
      const { signal } = ctx.mcpReq;
      if (passThrough === undefined) return hub.prompts.get(name, args, signal);
      return await passThroughRound(passThrough, 'prompts/get', name, ctx, (round) =>
        hub.prompts.getRound(name, args, round, signal),
      );
    });
  }
  if (declared.completions) {
    server.setRequestHandler('completion/complete', async (request, ctx) => {
      await startup();
      return hub.completions.complete(request.params, ctx.mcpReq.signal);
    });
  }
}

/**
 * The resource methods, for the upstreams' resources (when they offered any) and the skills'
 * `skill://` files (when skills are served): a `skill://` URI is the skills', the rest the upstreams'.
 */
function serveResources(server: Server, { hub, startup, declared }: SurfaceDeps, skills: SkillResources | undefined): void {
  const passthrough = declared.resources ? hub.resourcePassthrough : undefined;
  if (skills === undefined && passthrough === undefined) return;
  server.setRequestHandler('resources/list', async (request, ctx) => {
    const cursor = request.params?.cursor;
    const own = skills !== undefined && cursor === undefined ? await skills.list(ctx) : [];
    if (passthrough === undefined) return { resources: own };
    await startup();
    const page = await passthrough.list(cursor, ctx.mcpReq.signal);
    return { ...page, resources: [...own, ...page.resources] };
  });
  server.setRequestHandler('resources/templates/list', async (request, ctx) => {
    const cursor = request.params?.cursor;
    const own = skills !== undefined && cursor === undefined ? [skills.template] : [];
    if (passthrough === undefined) return { resourceTemplates: own };
    await startup();
    const page = await passthrough.templates(cursor, ctx.mcpReq.signal);
    return { ...page, resourceTemplates: [...own, ...page.resourceTemplates] };
  });
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const { uri } = request.params;
    if (skills?.matches(uri) === true) return skills.read(uri, ctx);
    if (passthrough === undefined) throw new ResourceNotFoundError(uri);
    await startup();
    return passthrough.read(uri, ctx.mcpReq.signal);
  });
}
