/**
 * `codemode-mcp --config ...`: serves one client over stdio until it goes away or a signal comes,
 * then stops every script, the warm pool and every upstream, and exits. Stdout is the protocol;
 * every log line goes to stderr.
 */
import type { CliInvocation } from '../cli/parse-cli.js';
import { readPackageVersion } from '../cli/package-version.js';
import { NameCollisionError } from '../errors.js';
import { ChildSupply } from '../scripts/child-supply.js';
import { UpstreamHub } from '../upstream/hub.js';
import type { UpstreamStatus } from '../upstream/upstream.js';
import { ClientSession } from './client-session.js';
import { StdioServerTransport } from '../transport/stdio-server-transport.js';
import { closeLeavingNoProcess } from './process-tree.js';
import { RequestGate } from './request-gate.js';
import { startupWait } from './startup.js';

/**
 * 30 s: the longest a shutdown may take before the server exits anyway (code 1, saying so). A
 * last resort: the shutdown signals its whole process tree, with SIGKILL at 2.5 s.
 */
export const SHUTDOWN_DEADLINE_MS = 30_000;

/** Exit code when the upstreams can't be served as configured (a name collision), or shutdown failed. */
export const EXIT_FAILURE = 1;

const writeStderr = (line: string): void => void process.stderr.write(`${line}\n`);

/** Serves until the client goes away or SIGINT/SIGTERM, then exits the process. */
export async function serveStdio(invocation: CliInvocation, log: (line: string) => void = writeStderr): Promise<void> {
  const version = readPackageVersion();
  const hub = new UpstreamHub(invocation.upstreams, { clientInfo: { name: 'codemode-mcp', version }, log, settings: invocation.settings });
  // Both start when the client's first valid `initialize` goes through (see RequestGate).
  let supply: ChildSupply | undefined;
  let ready: Promise<void> | undefined;

  let shuttingDown: Promise<void> | undefined;
  const shutDown = (why: string, code = 0): Promise<void> => {
    shuttingDown ??= (async () => {
      log(`codemode-mcp: shutting down (${why})`);
      setTimeout(() => {
        log(`codemode-mcp: shutdown took over ${SHUTDOWN_DEADLINE_MS / 1000} s; exiting anyway`);
        process.exit(EXIT_FAILURE);
      }, SHUTDOWN_DEADLINE_MS).unref();
      try {
        await closeLeavingNoProcess(async () => {
          // Scripts first, so their calls are cancelled upstream rather than lost with a closing upstream.
          await Promise.all([session.close(), supply?.close()]);
          await hub.close();
        }, log);
      } catch (error) {
        log(`codemode-mcp: error while shutting down: ${error instanceof Error ? error.stack : String(error)}`);
        code = EXIT_FAILURE;
      }
      process.exit(code);
    })();
    return shuttingDown;
  };

  const startUpstreams = (): void => {
    if (shuttingDown !== undefined) return;
    supply = new ChildSupply(invocation.settings);
    const started = hub.start();
    ready = startupWait(hub, started, invocation.settings.startupWaitMs, log);
    started.then(
      () => log(`codemode-mcp ${version}: ${describeUpstreams(hub.upstreamStatus())}`),
      (error: unknown) => {
        log(error instanceof NameCollisionError ? `codemode-mcp: ${error.message}` : `codemode-mcp: upstreams failed to start: ${String(error)}`);
        void shutDown('the upstreams cannot be served as configured', EXIT_FAILURE);
      },
    );
  };

  const session = new ClientSession({
    hub,
    supply: () => supply,
    settings: invocation.settings,
    version,
    // Before `initialize` nothing has started, so there is nothing to wait for.
    startup: () => ready ?? Promise.resolve(),
    log,
    sole: true,
    label: 'the client',
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void shutDown(signal));
  process.on('uncaughtException', (error) => {
    log(`codemode-mcp: internal error: ${error.stack ?? error.message}`);
    void shutDown('internal error', EXIT_FAILURE);
  });

  const { maxMessageBytes } = invocation.settings;
  const transport = new RequestGate(new StdioServerTransport({ maxMessageBytes }), {
    serves: (method) => session.serves(method),
    onInitialize: startUpstreams,
    maxMessageBytes,
    log,
  });
  await session.connect(transport, () => void shutDown('the client closed the connection'));
}

/** `upstreams: everything ready (13 tools), github down (it exited during startup)`. */
function describeUpstreams(statuses: readonly UpstreamStatus[]): string {
  const each = statuses.map((status) => {
    if (status.state === 'ready') return `${status.name} ready (${status.toolCount ?? 0} tools)`;
    return `${status.name} ${status.state}${status.reason !== undefined ? ` (${status.reason})` : ''}`;
  });
  return `upstreams: ${each.join(', ')}`;
}
