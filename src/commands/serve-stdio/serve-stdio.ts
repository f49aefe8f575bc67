/**
 * `codemode-mcp --config ...`: serves one client over stdio until it goes away or a signal comes,
 * then stops every script, the warm pool and every upstream, and exits. Stdout is the protocol;
 * every log line goes to stderr. The SDK's serveStdio picks the protocol revision from the
 * client's first message (`initialize` for 2025, a request with the 2026-07-28 `_meta` envelope,
 * or `server/discover`) and builds the connection's session from our factory for it.
 *
 * The process is the caller's (ServeIo): bin/ gives it its own stdin, stdout, signals and exit;
 * the tests give it a pair of streams and an exit of their own, and serve in their own process.
 */
import type { Readable, Writable } from 'node:stream';
import type { CliInvocation } from '../../cli/parse-cli.js';
import { readPackageVersion } from '../../cli/package-version.js';
import type { ChildSupply } from '../../scripts/child-supply.js';
import { UpstreamHub } from '../../upstream/hub.js';
import { ClientSession } from '../../mcp/client-session.js';
import { serveStdio as serveStdioConnection } from '@modelcontextprotocol/server/stdio';
import { StdioServerTransport } from '../../stdio/stdio-server-transport.js';
import type { EarlyStart } from './early-start.js';
import { RequestGate } from '../../mcp/request-gate.js';
import {
  EXIT_FAILURE,
  OWN_PROCESS,
  closeInOrder,
  createShutdown,
  shutDownOnSignals,
  type ServeProcess,
} from '../serve-shutdown.js';
import { startObserving, startServing } from '../serve-startup.js';
import { Logger, processLog, type Log } from '../../support/log.js';
import { openStateStore } from '../../state/open-state-store.js';
import { LOCAL_PRINCIPAL } from '../../state/state-store.js';
import { buildServedParts } from '../served-parts.js';
import { collectWhenIdle } from '../../support/idle-collect.js';
import { openBrowser } from '../../upstream/auth/open-browser.js';

/** Where the server reads and writes the protocol, and how it ends. */
export interface ServeIo extends ServeProcess {
  readonly stdin: Readable;
  readonly stdout: Writable;
  /** A person's terminal shows the log (stderr is a TTY): they are told what the server waits for. */
  readonly terminal?: boolean;
}

const PROCESS_IO: ServeIo = {
  ...OWN_PROCESS,
  stdin: process.stdin,
  stdout: process.stdout,
  terminal: process.stderr.isTTY === true,
};

/** Serves until the client goes away or SIGINT/SIGTERM, then exits. */
export async function serveStdio(
  invocation: CliInvocation,
  early?: EarlyStart,
  log: Log = processLog,
  io: ServeIo = PROCESS_IO,
): Promise<void> {
  const said = Logger.of(log);
  const version = readPackageVersion();
  const hub = new UpstreamHub(invocation.upstreams, {
    clientInfo: { name: 'codemode-mcp', version },
    log,
    settings: invocation.settings,
    // Those spawned early too, adopted or not: the shutdown's sweep covers them all.
    ...(early !== undefined ? { processGroups: early.processGroups } : {}),
  });
  const observability = await startObserving(invocation.settings, version, log);
  if (observability === undefined) {
    early?.discard();
    io.exit(EXIT_FAILURE);
    return;
  }
  const state = await openStateStore(invocation.settings, log);
  // Both start when the client's first valid `initialize` goes through (see RequestGate).
  let supply: ChildSupply | undefined;
  let ready: Promise<void> | undefined;

  let shuttingDown = false;
  const shutDown = createShutdown(
    async () => {
      await closeInOrder(hub, async () => {
        shuttingDown = true;
        await Promise.all([session?.close(), supply?.close()]);
        await approvalPage.close();
        listing.close();
        await Promise.all([state.close(), apis.close()]);
        // Spawned at process start for an `initialize` that never got as far as starting them.
        early?.discard();
      });
      // Last, so the spans of the scripts just stopped are exported before the process exits.
      await observability.close();
    },
    hub.processGroups,
    log,
    io.exit,
  );

  const startUpstreams = (): void => {
    if (shuttingDown) return;
    ({ supply, ready } = startServing(
      hub,
      invocation.settings,
      version,
      log,
      () => void shutDown('the upstreams cannot be served as configured', EXIT_FAILURE),
    ));
  };

  // Before the first request nothing has started, so there is nothing to wait for.
  const startup = (): Promise<void> => ready ?? Promise.resolve();
  const { apis, listing, skills, approvalPage } = buildServedParts(hub, invocation.settings, state, log, {
    saving: (owner) => ({ allowed: true, principal: `${owner.label} (stdio)` }),
    startup,
    page: { kind: 'loopback' },
    ...(invocation.settings.approvalOpenBrowser
      ? {
          openBrowser: (url: string) =>
            void openBrowser(url).catch((error: unknown) =>
              said.child('approval page').warn(`could not open a browser (${String(error)}); the link is in the script's answer`),
            ),
        }
      : {}),
    version,
  });
  if (invocation.settings.approvalPageUrl !== null) {
    said.warn('approvalPageUrl is for --http; over stdio approval links name the local listener (127.0.0.1)');
  }
  /** The connection's session; a `server/discover` probe's session, discarded when the client goes on with `initialize`, ends before the next. */
  let session: ClientSession | undefined;
  // The SDK's serveStdio names the revisions by era: `legacy` is 2025's, `modern` 2026-07-28's.
  const openSession = (era: 'legacy' | 'modern'): ClientSession => {
    const opened = new ClientSession({
      hub,
      supply: () => supply,
      settings: invocation.settings,
      version,
      startup,
      log,
      revision: era === 'modern' ? '2026-07-28' : '2025',
      sole: true,
      label: 'the client',
      apis,
      listing,
      principal: LOCAL_PRINCIPAL,
      skills,
      approvalPage,
    });
    // The SDK closes a discarded probe's Server, and the connection's when the connection ends.
    opened.server.onclose = () => void opened.close();
    session = opened;
    return opened;
  };

  if (io.ownsProcess) {
    shutDownOnSignals(shutDown, hub.processGroups, log);
    collectWhenIdle(said);
  }

  const { maxMessageBytes } = invocation.settings;
  const stdio = new StdioServerTransport({ maxMessageBytes, stdin: io.stdin, stdout: io.stdout });
  const transport = new RequestGate(stdio, {
    // Every session serves the same methods; before the first, the lifecycle check says what may come.
    serves: (method) => session?.serves(method) ?? true,
    onInitialize: startUpstreams,
    onClosed: () => void shutDown('the client closed the connection'),
    maxMessageBytes,
    log,
  });
  if (io.terminal === true) said.info(waitingForAClient(version, invocation.upstreams.length));
  early?.stopWatching();
  serveStdioConnection(({ era }) => openSession(era).server, {
    transport,
    onerror: (error) => said.warn(error.message),
  });
}

/**
 * What a person who ran the server in a terminal reads (a line of the log, after its prefix): it
 * serves one MCP client over stdin and stdout, which a client starts it to do, and it starts
 * nothing until that client says hello.
 */
function waitingForAClient(version: string, upstreams: number): string {
  return (
    `version ${version}: serving MCP over stdio, waiting for an MCP client's messages on stdin. An MCP client ` +
    "(Claude Desktop, Claude Code, Cursor, VS Code) runs this command itself: add it to the client's config " +
    '(README, "Add it to a client"); to try it by hand, the MCP Inspector runs it the same way ' +
    '(README, "Try it with the MCP Inspector"). ' +
    `The ${upstreams} upstream${upstreams === 1 ? '' : 's'} start when a client connects. Ctrl-C stops it.`
  );
}
