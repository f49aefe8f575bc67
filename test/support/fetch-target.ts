/**
 * A small HTTP server on 127.0.0.1 for fetch tests: each test gives its routes; every request is
 * kept (method, path, headers, body) so a test can say what the server got, and which requests
 * are open now and at most. Closed after its test (closeTargets), connections and all.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FetchOriginRule } from '../../src/config/fetch-setting.js';
import { ServerHeaders } from '../../src/config/fetch-setting.js';

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

export type Route = (request: SeenRequest, response: ServerResponse) => void | Promise<void>;

export interface FetchTarget {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly port: number;
  readonly seen: SeenRequest[];
  /** Requests answered not yet, now and at most. */
  readonly open: { now: number; most: number };
  close(): Promise<void>;
}

const running = new Set<Server>();

/** Serves `route` (given every request) on 127.0.0.1 at a free port. */
export async function startTarget(route: Route): Promise<FetchTarget> {
  const seen: SeenRequest[] = [];
  const open = { now: 0, most: 0 };
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request = {
        method: incoming.method ?? '',
        path: incoming.url ?? '',
        headers: incoming.headers,
        body: Buffer.concat(chunks),
      };
      seen.push(request);
      open.now++;
      open.most = Math.max(open.most, open.now);
      response.on('close', () => open.now--);
      void Promise.resolve(route(request, response)).catch((error: Error) => {
        response.statusCode = 500;
        response.end(error.message);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  running.add(server);
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    seen,
    open,
    close: () => closeServer(server),
  };
}

function closeServer(server: Server): Promise<void> {
  running.delete(server);
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Closes every target still running: call it after each test. */
export async function closeTargets(): Promise<void> {
  await Promise.all([...running].map(closeServer));
}

/** A rule as settings.fetch would make it, its headers given as expanded, `secrets` their `${VAR}` texts. */
export function originRule(
  origin: string,
  rule: Partial<Omit<FetchOriginRule, 'origin' | 'headers'>> & { headers?: Record<string, string>; secrets?: string[] } = {},
): FetchOriginRule {
  const { headers = {}, secrets = [], ...rest } = rule;
  return {
    origin,
    methods: ['GET', 'HEAD'],
    allowPrivate: true,
    ...rest,
    headers: new ServerHeaders(new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])), secrets),
  };
}
