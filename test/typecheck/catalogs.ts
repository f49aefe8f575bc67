/**
 * Catalogs with real schemas for the type check's tests: server-everything's tools, listed in the
 * test's own process (its createServer linked to the hub by the SDK's in-memory pair), and the
 * tools of a few fixture schemas.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { CatalogTool, JsonSchema } from '../../src/catalog/types.js';
import { UpstreamHub } from '../../src/upstream/hub.js';
import { inMemorySpec, inMemoryUpstreams } from '../upstream/in-memory.js';

interface EverythingServer {
  readonly createServer: () => { server: { connect(transport: unknown): Promise<void> }; cleanup: () => void };
}

/** server-everything's tools as a hub lists them (one upstream: each tool by its own name). */
export async function everythingCatalog(): Promise<readonly CatalogTool[]> {
  const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/server/index.js');
  const { createServer } = (await import(pathToFileURL(entry).href)) as EverythingServer;
  const cleanups: (() => void)[] = [];
  const upstreams = inMemoryUpstreams(() => {
    const { server, cleanup } = createServer();
    cleanups.push(cleanup);
    return server as never;
  });
  const hub = new UpstreamHub([inMemorySpec('everything')], { connect: upstreams.connect, log: () => {} });
  try {
    await hub.start();
    return hub.catalog().tools;
  } finally {
    await hub.close();
    for (const cleanup of cleanups) cleanup();
  }
}

/** A tool of `server` from its schemas, callable. */
export function toolOf(name: string, inputSchema: JsonSchema, outputSchema?: JsonSchema, server = 'fixture'): CatalogTool {
  return {
    name,
    server,
    upstreamName: name,
    description: `the ${name} tool`,
    inputSchema,
    ...(outputSchema !== undefined ? { outputSchema } : {}),
    allowed: true,
  };
}
