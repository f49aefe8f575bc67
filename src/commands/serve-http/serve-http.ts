/**
 * `codemode-mcp --http [host:]port`: Streamable HTTP at `/mcp` on node:http, many sessions at
 * once, each a world of its own (http-sessions.ts), sharing the upstreams and the script
 * children. Every request passes the Host/Origin and token checks first (http-guard.ts), but
 * the approval page's (`/approve/`, whose link's token admits it, and which checks Host and Origin
 * itself); `/healthz` says how the instance stands. On SIGTERM it first drains (drain.ts); then, or at once
 * on SIGINT, it stops accepting, ends every session (stopping its scripts), closes the pool and the
 * upstreams, and exits.
 *
 * The process is the caller's (ServeProcess): bin/ gives it the process's signals and exit (SIGHUP
 * reads the tokens file again); the tests give it an exit of their own, serve in their own process
 * and shut it down by the ShutDown returned.
 */
import { createServer, type IncomingMessage, type Server as NodeHttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CliInvocation } from '../../cli/parse-cli.js';
import { readPackageVersion } from '../../cli/package-version.js';
import { UpstreamHub } from '../../upstream/hub.js';
import { guardRequest } from '../../http/guard.js';
import { sendHealth, sendPublicHealth } from '../../http/health.js';
import { serveMcp } from '../../http/mcp-endpoint.js';
import { acceptedHostnames, type HttpOptions } from '../../config/http-options.js';
import { httpRefusal, sendRefusal } from '../../http/refusal.js';
import { HttpSessions } from '../../http/sessions.js';
import { Sessionless } from '../../mcp/sessionless.js';
import { TokenTable } from '../../http/tokens-file.js';
import {
  EXIT_FAILURE,
  closeInOrder,
  createShutdown,
  shutDownOnSignals,
  OWN_PROCESS,
  type BeforeShutdown,
  type ServeProcess,
  type ShutDown,
} from '../serve-shutdown.js';
import { drainOnSigterm } from './drain.js';
import { startObserving, startServing } from '../serve-startup.js';
import { Logger, processLog, type Log } from '../../support/log.js';
import { openStateStore } from '../../state/open-state-store.js';
import { httpSaving } from '../../skills/skills-api.js';
import { buildServedParts } from '../served-parts.js';
import { collectWhenIdle } from '../../support/idle-collect.js';
import { APPROVE_PATH, isPagePath } from '../../approvals/page/page-requests.js';

/** The path MCP is served at. */
export const MCP_PATH = '/mcp';

/** The path of the health endpoint. */
export const HEALTH_PATH = '/healthz';

/**
 * Serves until SIGINT/SIGTERM, then exits the process. Resolves once listening (or once it could
 * not start, having exited), with the shutdown a signal starts; undefined when nothing started.
 */
export async function serveHttp(
  invocation: CliInvocation,
  http: HttpOptions,
  log: Log = processLog,
  io: ServeProcess = OWN_PROCESS,
): Promise<ShutDown | undefined> {
  const said = Logger.of(log);
  const version = readPackageVersion();
  const { settings } = invocation;
  const hub = new UpstreamHub(invocation.upstreams, { clientInfo: { name: 'codemode-mcp', version }, log, settings });
  const observability = await startObserving(settings, version, log);
  if (observability === undefined) {
    io.exit(EXIT_FAILURE);
    return undefined;
  }
  // Read before anything starts: a file that can't be used stops the start with nothing to undo.
  const tokens = await readTokens(settings.httpTokensFile, log);
  if (tokens === 'refused') {
    said.error('not serving: its tokens file cannot be used');
    await observability.close();
    io.exit(EXIT_FAILURE);
    return undefined;
  }
  const state = await openStateStore(settings, log);
  let accepting = true;
  /** SIGTERM's drain has begun: no new session or script. */
  let draining = false;
  let listener: NodeHttpServer | undefined;

  const shutDown = createShutdown(
    async () => {
      await closeInOrder(hub, async () => {
        accepting = false;
        // No new connection; those open are ended once their sessions have closed their streams.
        listener?.close();
        await sessions.endAll('the server is shutting down');
        const stopped = await sessionless.close();
        if (stopped.length > 0) said.info(`scripts of 2026-07-28 callers stopped at shutdown: ${stopped.join(', ')}`);
        await supply.close();
        listing.close();
        await approvalPage.close();
        await Promise.all([state.close(), apis.close()]);
      });
      listener?.closeAllConnections();
      // Last, so the spans of the scripts just stopped are exported before the process exits.
      await observability.close();
    },
    hub.processGroups,
    log,
    io.exit,
  );

  if (io.ownsProcess) collectWhenIdle(said);
  // Upstreams and pool start now, not at a first initialize: an HTTP server is started to be used.
  const { supply, ready } = startServing(
    hub,
    settings,
    version,
    log,
    () => void shutDown('the upstreams cannot be served as configured', EXIT_FAILURE),
  );
  const hostnames = acceptedHostnames(http);
  const { apis, listing, skills, approvalPage } = buildServedParts(hub, settings, state, log, {
    saving: (owner) => httpSaving(settings, owner.label),
    startup: () => ready,
    // A route of this server: its links name approvalPageUrl, or the address it listens at.
    page: {
      kind: 'route',
      origin: () => settings.approvalPageUrl ?? listenerOrigin(listener),
      hostnames,
      ...(http.instanceId !== undefined ? { instance: http.instanceId } : {}),
    },
    version,
  });
  if (settings.approvalOpenBrowser) {
    said.warn('approvalOpenBrowser opens links over stdio only; over --http the link goes through the client');
  }
  // What 2025 sessions and 2026-07-28 callers both are served with.
  const served = {
    hub,
    supply,
    settings,
    version,
    startup: () => ready,
    log,
    apis,
    listing,
    skills,
    instanceId: http.instanceId,
    approvalPage,
  };
  const sessions = new HttpSessions(served);
  const sessionless = new Sessionless(served);
  const drain: BeforeShutdown = (signal, hurry) =>
    drainOnSigterm({ supply, settings, instanceId: http.instanceId, log, began: () => (draining = true) }, signal, hurry);
  if (io.ownsProcess && tokens !== undefined) {
    // A server with a tokens file reads it again on SIGHUP, as daemons do, rather than ending.
    shutDownOnSignals(shutDown, hub.processGroups, log, ['SIGINT', 'SIGTERM'], drain);
    process.on('SIGHUP', () => void tokens.reload());
  } else if (io.ownsProcess) shutDownOnSignals(shutDown, hub.processGroups, log, undefined, drain);

  const guard = { hostnames, token: http.token, tokens: () => tokens?.table };
  const standing = (): 'serving' | 'draining' | 'shutting down' =>
    !accepting ? 'shutting down' : draining ? 'draining' : 'serving';
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    // A person's browser carries no bearer token: the link's own token is what admits it (and the page checks Host and Origin).
    if (isPagePath(path)) return approvalPage.serve(req, res);
    const admitted = guardRequest(req.headers, guard);
    if ('status' in admitted) {
      // A liveness probe sends no token (and names the address it reached): the status, and nothing else.
      if (http.publicHealth && path === HEALTH_PATH && req.method === 'GET') sendPublicHealth(res, standing());
      else sendRefusal(res, admitted, true);
      return;
    }
    const { principal } = admitted;
    if (path === MCP_PATH) {
      await serveMcp(req, res, sessions, {
        maxMessageBytes: settings.maxMessageBytes,
        log,
        accepting: () => accepting,
        draining: () => draining,
        sessionless,
        principal,
      });
    } else if (path === HEALTH_PATH && req.method === 'GET') {
      sendHealth(res, {
        instanceId: http.instanceId,
        version,
        state: standing(),
        upstreams: hub.upstreamStatus(),
        sessions: sessions.size,
        children: { alive: supply.size, pooled: supply.pooledCount, max: settings.maxScriptChildren },
      });
    } else {
      sendRefusal(
        res,
        httpRefusal(
          404,
          `Not Found: ${req.method ?? ''} ${path.slice(0, 200)}; MCP is served at ${MCP_PATH}, health at GET ${HEALTH_PATH}, approval pages under ${APPROVE_PATH}`,
        ),
      );
    }
  };

  listener = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      said.error(
        `internal error answering ${req.method ?? ''} ${req.url ?? ''}: ${error instanceof Error ? error.stack : String(error)}`,
      );
      if (!res.headersSent) sendRefusal(res, httpRefusal(500, 'Internal Server Error: see the server log', {}, -32603));
      else res.end();
    });
  });
  const listening = await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(http.port, http.host, () => {
      listener.off('error', reject);
      resolve();
    });
  }).then(
    () => true,
    (error: unknown) => {
      said.error(`cannot listen on ${http.host}:${http.port}: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    },
  );
  if (!listening) {
    await shutDown('it cannot listen', EXIT_FAILURE);
    return shutDown;
  }
  const address = listener.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  said.info(
    `version ${version}: serving MCP over HTTP at http://${shownHost}:${address.port}${MCP_PATH}` +
      `${http.instanceId !== undefined ? ` as instance ${http.instanceId}` : ''}${http.token !== undefined ? ', bearer token required' : ''}`,
  );
  return shutDown;
}

/** `http://127.0.0.1:8080`: where the listener is reached, a wildcard address read as this machine's loopback. */
function listenerOrigin(listener: NodeHttpServer | undefined): string | undefined {
  const address = listener?.listening === true ? (listener.address() as AddressInfo) : undefined;
  if (address === undefined) return undefined;
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/** The tokens file as last read, and its reading again; `refused` when the first read fails (said in the log). */
async function readTokens(
  path: string | null,
  log: Log,
): Promise<{ table: TokenTable; reload(): Promise<void> } | 'refused' | undefined> {
  if (path === null) return undefined;
  const said = Logger.of(log);
  try {
    const holder = {
      table: await TokenTable.read(path),
      async reload(): Promise<void> {
        try {
          holder.table = await TokenTable.read(path);
          said.info(`read the tokens file again on SIGHUP: ${holder.table.size} principals`);
        } catch (error) {
          said.error(`on SIGHUP, kept the tokens read before: ${(error as Error).message}`);
        }
      },
    };
    said.info(`${holder.table.size} principals in the tokens file ${path}`);
    return holder;
  } catch (error) {
    said.error((error as Error).message);
    return 'refused';
  }
}
