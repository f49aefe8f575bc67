/**
 * The MCP Skills extension on the session's low-level `Server`. `SkillsExtension.attach` takes an
 * `McpServer`, which would own `resources/list`, `resources/templates/list` and `resources/read`,
 * and those are the upstreams' passthrough here. So it is given a stand-in with what attach uses:
 * the `Server` itself (skills/list, skills/get and the capability go straight onto it), and a
 * `registerResource` that keeps the `skill://` template and its read callback, which the session's
 * own resource handlers call for `skill://` URIs. A change in what attach uses shows in
 * test/e2e/skills-served.test.ts.
 */
import type {
  McpServer,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Server,
  ServerContext,
} from '@modelcontextprotocol/server';
import type { SkillsExtension } from '@modelcontextprotocol/server/ext/skills';

/** The `skill://` resources, for the session's resource handlers. */
export interface SkillResources {
  /** The template as `resources/templates/list` shows it. */
  readonly template: { readonly name: string; readonly uriTemplate: string };
  /** Whether the URI is one the extension serves. */
  matches(uri: string): boolean;
  read(uri: string, ctx: ServerContext): Promise<ReadResourceResult>;
  /** Each skill's SKILL.md, for `resources/list`. */
  list(ctx: ServerContext): Promise<Resource[]>;
}

type ReadCallback = (uri: URL, variables: Record<string, string | string[]>, ctx: ServerContext) => Promise<ReadResourceResult>;

/** Attaches the extension to `server` (before it connects) and returns its resources. */
export function serveSkills(server: Server, extension: SkillsExtension): SkillResources {
  let registered: { name: string; template: ResourceTemplate; read: ReadCallback } | undefined;
  const host = {
    server,
    isConnected: () => server.transport !== undefined,
    registerResource: (name: string, template: ResourceTemplate, _config: unknown, read: ReadCallback) => {
      registered = { name, template, read };
    },
  };
  extension.attach(host as unknown as McpServer);
  if (registered === undefined) throw new Error('SkillsExtension.attach registered no skill:// resource template');
  const { name, template, read } = registered;
  return {
    template: { name, uriTemplate: template.uriTemplate.toString() },
    matches: (uri) => template.uriTemplate.match(uri) !== null,
    read: (uri, ctx) => {
      const variables = template.uriTemplate.match(uri) ?? {};
      return read(new URL(uri), variables, ctx);
    },
    list: async (ctx) => (template.listCallback === undefined ? [] : (await template.listCallback(ctx)).resources),
  };
}
