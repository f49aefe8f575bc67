/**
 * Upstreams in the test's own process: each entry's server is an McpServer made by the test,
 * linked to the hub's client by the SDK's in-memory transport pair. For what needs no process
 * (routing, the catalog, refusals); exits, process groups and stderr keep real fixtures.
 */
import { InMemoryTransport, type Transport } from '@modelcontextprotocol/client';
import { McpServer, Server } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { StdioUpstreamSpec, ToolPolicy } from '../../src/upstream/spec.js';
import type { Connector } from '../../src/upstream/transport/connect-upstream.js';

/** An entry whose command is never run: the hub is given `connect` from inMemoryUpstreams. */
export function inMemorySpec(name: string, policy: ToolPolicy = {}): StdioUpstreamSpec {
  return { name, transport: 'stdio', command: 'in-memory', args: [], env: {}, policy };
}

/** What a test's upstream is: an McpServer or a low-level Server. */
interface Serving {
  connect(transport: Transport): Promise<void>;
}

export interface InMemoryUpstreams<S extends Serving> {
  /** For UpstreamHubOptions.connect. */
  readonly connect: Connector;
  /** Every server made so far, by entry name (the last one for an entry connected twice). */
  readonly servers: Map<string, S>;
}

/** Connects each entry to a server `serve` makes for it. */
export function inMemoryUpstreams<S extends Serving>(serve: (name: string) => S): InMemoryUpstreams<S> {
  const servers = new Map<string, S>();
  const connect: Connector = async (spec, options) => {
    const server = serve(spec.name);
    servers.set(spec.name, server);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = options.createClient();
    await client.connect(clientSide, { timeout: options.timeoutMs, signal: options.signal });
    return { client, transport: clientSide, kind: 'stdio' };
  };
  return { connect, servers };
}

const text = (value: string): { content: [{ type: 'text'; text: string }] } => ({ content: [{ type: 'text', text: value }] });

/** A server whose tools are `names`; each answers with its own name (as fixtures/upstreams/named-tools.mjs). */
export function namedTools(...names: string[]): McpServer {
  const server = new McpServer({ name: 'named-tools', version: '1.0.0' });
  for (const name of names)
    server.registerTool(name, { description: `tool ${name}`, inputSchema: z.object({}) }, () => text(name));
  return server;
}

/**
 * A server that notes every call it receives in `calls` (as fixtures/upstreams/recorder.mjs):
 * `echo`, `secret`, and `add-tool`, which adds a tool at run time (a tools/list_changed follows).
 */
export function recorder(calls: string[] = []): McpServer {
  const server = new McpServer({ name: 'recorder', version: '1.0.0' });
  const tool = (
    name: string,
    inputSchema: z.ZodObject,
    handler: (args: Record<string, unknown>) => ReturnType<typeof text>,
  ): void => {
    server.registerTool(name, { description: `the ${name} tool`, inputSchema }, (args: Record<string, unknown>) => {
      calls.push(name);
      return handler(args);
    });
  };
  tool('echo', z.object({ text: z.string() }), (args) => text(String(args.text)));
  tool('secret', z.object({}), () => text('the secret ran'));
  tool('add-tool', z.object({ name: z.string() }), (args) => {
    const name = String(args.name);
    server.registerTool(name, { description: 'added at run time', inputSchema: z.object({}) }, () => text(name));
    return text(`added ${name}`);
  });
  return server;
}

/** A low-level server whose `tools/list` sends `pages` in turn, each page's nextCursor as given. */
export function pagedTools(pages: ReadonlyArray<{ readonly tools: readonly string[]; readonly nextCursor?: string }>): Server {
  const server = new Server({ name: 'paged', version: '1.0.0' }, { capabilities: { tools: {} } });
  let served = 0;
  server.setRequestHandler('tools/list', () => {
    const page = pages[Math.min(served++, pages.length - 1)]!;
    return {
      tools: page.tools.map((name) => ({ name, description: name, inputSchema: { type: 'object' as const } })),
      ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
    };
  });
  return server;
}

const STRUCTURED_OUTPUT = { type: 'object' as const, properties: { n: { type: 'number' } }, required: ['n'] };

/**
 * A low-level server that lists its tools two per page, and whose tools send structured content
 * that breaks their own output schemas: a client that validates would throw.
 */
export function pagedUpstream(): Server {
  const tools = [
    { name: 'bad-structured', description: 'structured content that breaks its schema', outputSchema: STRUCTURED_OUTPUT },
    { name: 'no-structured', description: 'an output schema but no structured content', outputSchema: STRUCTURED_OUTPUT },
    ...['t3', 't4', 't5'].map((name) => ({ name, description: name })),
  ].map((tool) => ({ ...tool, inputSchema: { type: 'object' as const } }));
  const server = new Server({ name: 'paged', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', (request) => {
    const start = Number(request.params?.cursor ?? 0);
    const next = start + 2;
    return { tools: tools.slice(start, next), ...(next < tools.length ? { nextCursor: String(next) } : {}) };
  });
  server.setRequestHandler('tools/call', (request) => {
    const name = request.params.name;
    if (name === 'bad-structured')
      return { content: [{ type: 'text', text: 'n is a string' }], structuredContent: { n: 'not a number' } };
    return { content: [{ type: 'text', text: name }] };
  });
  return server;
}
