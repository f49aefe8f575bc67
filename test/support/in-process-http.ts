/**
 * The server as `bin/codemode-mcp.js --http 127.0.0.1:0` serves (the same command line, parseCli
 * and serveHttp on a port of its own), but in the test's own process, stopped by its shutdown
 * rather than a signal. What a script runs in stays real: its child processes, the engine, the
 * upstreams. Clients reach it over real HTTP (connectHttp, rawRequest, TasksClient take its url).
 * What a process of its own shows (a signal's drain, SIGHUP, an exit code, where it may listen)
 * needs startHttpServer (http-server.ts) instead.
 */
import { isCliExit, parseCli } from '../../src/cli/parse-cli.js';
import { serveHttp } from '../../src/commands/serve-http/serve-http.js';
import type { ShutDown } from '../../src/commands/serve-shutdown.js';
import { deferred } from '../../src/support/deferred.js';
import { serverLog, trackStarted } from './in-process-server.js';
import { until } from './waiting.js';

export interface InProcessHttpServer {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  readonly port: number;
  /** What the server logged so far, a line each, at its --log-level (its stderr, were it a process). */
  stderr(): string;
  /** Resolves with the first match of `pattern` in the server's log; fails if the server ends first. */
  logged(pattern: RegExp): Promise<string>;
  /** The server's end, with its exit code. */
  readonly exited: Promise<{ readonly code: number }>;
  /** Shuts the server down as SIGINT would (no drain), waits for its end, and returns what it left running. */
  stop(): Promise<{ readonly code: number; readonly left: number[] }>;
}

export interface InProcessHttpOptions {
  /** Where the config's `${VAR}` and CODEMODE_HTTP_TOKEN are looked up; unset, this process's environment. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** A relative --config is taken from here. */
  readonly cwd?: string;
}

const LISTENING = /serving MCP over HTTP at (http:\/\/\S+\/mcp)/;

/** serveHttp in this process, as far as it got: listening at `url`, or ended (`exited` settled) without. */
interface ServedHttp {
  readonly url: string | undefined;
  readonly shutDown: ShutDown | undefined;
  readonly stderr: () => string;
  readonly exited: Promise<{ readonly code: number }>;
  readonly started: ReturnType<typeof trackStarted>;
}

async function serveInProcessHttp(args: readonly string[], options: InProcessHttpOptions): Promise<ServedHttp> {
  const invocation = parseCli(['--http', '127.0.0.1:0', ...args], {
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.env !== undefined ? { env: options.env } : {}),
  });
  if (isCliExit(invocation))
    throw new Error(`the command line was refused (exit ${invocation.exit}): ${invocation.stderr ?? ''}`);
  if (invocation.http === undefined) throw new Error('parseCli read --http 127.0.0.1:0 as no HTTP options');
  const { log, stderr } = serverLog(invocation.logging.logLevel);
  const exited = deferred<{ code: number }>();
  const started = trackStarted();
  void exited.promise.then(() => started.stop());
  const shutDown = await serveHttp(invocation, invocation.http, log, {
    exit: (code) => exited.resolve({ code }),
    ownsProcess: false,
  });
  const url = shutDown === undefined ? undefined : LISTENING.exec(stderr())?.[1];
  return { url, shutDown, stderr, exited: exited.promise, started };
}

/** Serves `args` (as bin/codemode-mcp.js would take them, the upstream after `--`) over HTTP on a free loopback port, in this process. */
export async function startInProcessHttp(
  args: readonly string[],
  options: InProcessHttpOptions = {},
): Promise<InProcessHttpServer> {
  const { url, shutDown, stderr, exited, started } = await serveInProcessHttp(args, options);
  if (url === undefined || shutDown === undefined) {
    await exited;
    throw new Error(`the server did not start serving; its log:\n${stderr()}`);
  }
  let ended = false;
  void exited.then(() => (ended = true));
  return {
    url,
    port: Number(new URL(url).port),
    stderr,
    logged: (pattern) =>
      until(
        `the server to log ${String(pattern)}`,
        () => {
          const match = pattern.exec(stderr());
          if (match !== null) return match[0];
          if (ended) throw new Error(`the server ended before logging ${String(pattern)}; its log:\n${stderr()}`);
          return undefined;
        },
        () => `its log:\n${stderr().slice(-2_000)}`,
      ),
    exited,
    stop: async () => {
      started.sample();
      await shutDown('the test stopped it');
      const { code } = await exited;
      return { code, left: await started.leftAlive() };
    },
  };
}

/** Serves `args` as startInProcessHttp does, for a start that must fail: its exit code, its log, and what it left running. */
export async function refusedInProcessHttp(
  args: readonly string[],
  options: InProcessHttpOptions = {},
): Promise<{ readonly code: number; readonly stderr: string; readonly left: number[] }> {
  const { url, shutDown, stderr, exited, started } = await serveInProcessHttp(args, options);
  if (url !== undefined) {
    await shutDown?.('the test expected it not to start');
    throw new Error(`the server started serving at ${url}, where its start should have failed`);
  }
  const { code } = await exited;
  return { code, stderr: stderr(), left: await started.leftAlive() };
}
