/**
 * Opens the transport an upstream entry names and connects a client over it: stdio (our own
 * transport, stdio-transport.ts) with a minimal environment and its stderr passed on line by line;
 * Streamable HTTP, falling back to SSE when the server answers like one that doesn't speak it; or SSE.
 */
import {
  Client,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type FetchLike,
  type OAuthClientProvider,
  type Transport,
} from '@modelcontextprotocol/client';
import type { RefusalNotes } from '../auth/refusals.js';
import { boundedFetch } from './bounded-fetch.js';
import { LEGACY_ONLY } from '../connection/revision.js';
import { upstreamEnvironment } from './environment.js';
import type { RemoteUpstreamSpec, StdioUpstreamSpec, UpstreamSpec } from '../spec.js';
import { StderrLines } from '../../support/stderr-lines.js';
import type { LiveGroups } from '../../support/process-group.js';
import { StdioUpstreamTransport } from './stdio-transport.js';
import { logFailure, Logger, type Log } from '../../support/log.js';

export type TransportKind = 'stdio' | 'http' | 'sse';

export interface Connected {
  readonly client: Client;
  readonly transport: Transport;
  readonly kind: TransportKind;
}

export interface ConnectOptions {
  /** A new client, its handlers installed; called once per transport tried. */
  readonly createClient: () => Client;
  readonly stderr: StderrLines;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /** The longest message read from the upstream (read-limit.ts). */
  readonly maxMessageBytes: number;
  /** A stdio upstream's time to end by itself after its stdin closes, before SIGTERM; absent, GROUP_TERM_AFTER_MS. */
  readonly closeGraceMs?: number;
  /** Where a stdio upstream's process group is kept until it has ended: its hub's (process-group.ts). */
  readonly processGroups: LiveGroups;
  /** Our log, for what a remote upstream sent that was skipped unread. */
  readonly log: Log;
  /** A remote upstream's OAuth (auth/oauth-provider.ts): its token on each request, and the SDK's sign-in flow on a 401 or 403. */
  readonly authProvider?: OAuthClientProvider;
  /** Notes what a remote upstream said when it answered 401 or 403 (auth/refusals.ts). */
  readonly refusals?: RefusalNotes;
  /** Opened with the 2025 handshake alone, without the revision probe (revision.ts: skipsProbeNext). */
  readonly unprobed?: boolean;
}

/** How an upstream entry becomes a connected client: connectUpstream, or (in tests) a linked in-memory pair. */
export type Connector = (spec: UpstreamSpec, options: ConnectOptions) => Promise<Connected>;

export async function connectUpstream(spec: UpstreamSpec, options: ConnectOptions): Promise<Connected> {
  const log = Logger.of(options.log).child(`upstream "${spec.name}"`);
  if (spec.transport === 'stdio') {
    // The arguments are counted, not shown: a `${VAR}` in them may have put a secret there.
    const where = spec.cwd !== undefined ? ` in ${spec.cwd}` : '';
    log.debug(`starting ${spec.command} with ${spec.args.length} arguments${where}`);
    return connectOver('stdio', createStdioTransport(spec, options), options);
  }
  const url = new URL(spec.url);
  // Origin and path only: a query may carry a key.
  log.debug(`connecting to ${url.origin}${url.pathname} (${spec.transport})`);
  // Aborted with the start: an upstream that never answers must not hold a shutdown until its timeout.
  const fetch = abortedWith(remoteFetch(spec, options), options.signal);
  const remote = {
    requestInit: { headers: spec.headers },
    fetch: options.refusals === undefined ? fetch : options.refusals.observe(fetch),
    ...(options.authProvider !== undefined ? { authProvider: options.authProvider } : {}),
  };
  if (spec.transport === 'sse') return connectOver('sse', new SSEClientTransport(url, remote), options);
  try {
    return await connectOver('http', new StreamableHTTPClientTransport(url, remote), options);
  } catch (error) {
    if (!speaksNoStreamableHttp(error) || options.signal.aborted) throw error;
    return connectOver('sse', new SSEClientTransport(url, remote), options);
  }
}

/** The fetch a remote upstream's requests (and its sign-in's) go through: every answer bounded (bounded-fetch.ts). */
export function remoteFetch(spec: RemoteUpstreamSpec, options: Pick<ConnectOptions, 'maxMessageBytes' | 'log'>): FetchLike {
  return boundedFetch(options.maxMessageBytes, (what) =>
    Logger.of(options.log).child(`upstream "${spec.name}"`).warn(`skipped ${what}`),
  );
}

/** `fetch`, each request of it also aborted by `signal` (the upstream closing). */
function abortedWith(fetch: FetchLike, signal: AbortSignal): FetchLike {
  return (url, init) => fetch(url, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
}

/** The entry's env over the SDK's minimal set and the proxy variables (environment.ts), never our whole environment. */
export function createStdioTransport(
  spec: StdioUpstreamSpec,
  options: Pick<ConnectOptions, 'stderr' | 'maxMessageBytes' | 'closeGraceMs' | 'processGroups'>,
): StdioUpstreamTransport {
  return new StdioUpstreamTransport({
    name: spec.name,
    command: spec.command,
    args: spec.args,
    env: upstreamEnvironment(spec.env),
    ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
    stderr: options.stderr,
    maxMessageBytes: options.maxMessageBytes,
    ...(options.closeGraceMs !== undefined ? { closeGraceMs: options.closeGraceMs } : {}),
    processGroups: options.processGroups,
  });
}

async function connectOver(kind: TransportKind, transport: Transport, options: ConnectOptions): Promise<Connected> {
  const client = options.createClient();
  const prior = options.unprobed === true ? { prior: LEGACY_ONLY } : {};
  try {
    await client.connect(transport, { timeout: options.timeoutMs, signal: options.signal, ...prior });
    return { client, transport, kind };
  } catch (error) {
    // The connect's own failure is what the caller gets; these are only logged.
    await client.close().catch(logFailure('closing a client whose connect failed', options.log));
    await transport.close().catch(logFailure('closing a transport whose connect failed', options.log));
    // Failed in the revision probe, before the client took the transport: its onclose would never fire.
    if (client.transport === undefined) client.onclose?.();
    throw error;
  }
}

/** A 4xx other than 401/403 on the first POST: a server that serves only the older SSE transport. */
function speaksNoStreamableHttp(error: unknown): boolean {
  if (!(error instanceof SdkHttpError)) return false;
  return error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 403;
}
