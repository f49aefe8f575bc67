/**
 * Starts bin/codemode-mcp.js as an MCP client would: the SDK's Client over the SDK's stdio
 * transport, with a real process on the other end.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Client,
  type CallToolResult,
  type ClientCapabilities,
  type ClientOptions,
  type ElicitRequest,
  type ElicitResult,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { execa } from 'execa';
import { childPidsOf, commandLineOf, startTimeOf } from './processes.js';
import { until } from './waiting.js';

export { eventually } from './waiting.js';
import { makeTempDir } from './temp-dirs.js';
import { upstreamFixture } from './fixture-bundles.js';

export const BIN = fileURLToPath(new URL('../../bin/codemode-mcp.js', import.meta.url));
/**
 * What runs bin/codemode-mcp.js in the tests: CODEMODE_TEST_RUNTIME (a path to node 24, or to bun:
 * test/matrix/run.sh), else the node running the tests. Upstream fixtures always run on the latter.
 */
export const SERVER_RUNTIME = process.env.CODEMODE_TEST_RUNTIME || process.execPath;

/**
 * The arguments that run the bin on SERVER_RUNTIME. Bun takes a `--` right after the script as the
 * end of its own options and drops it, so a second one keeps the user's (`bun bin/... -- -- cmd`).
 */
export function binArgs(bin: string, args: readonly string[]): string[] {
  return /(^|[/\\])bun(\.exe)?$/.test(SERVER_RUNTIME) ? [bin, '--', ...args] : [bin, ...args];
}
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** The node entry of an npm-published reference server, started as its bin would be. */
export function publishedEntry(pkg: 'server-everything' | 'server-memory' | 'server-filesystem'): string {
  return join(ROOT, 'node_modules', '@modelcontextprotocol', pkg, 'dist', 'index.js');
}

export function fixturePath(relative: string): string {
  return relative.startsWith('upstreams/') ? upstreamFixture(relative.slice('upstreams/'.length)) : join(FIXTURES, relative);
}

/** A config entry that starts a node program (the tests' node, not whatever `node` PATH finds). */
export function nodeEntry(script: string, args: string[] = [], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [script, ...args], ...extra };
}

/** Writes `{mcpServers, settings}` to a fresh temp file and returns its path. */
export function writeConfig(mcpServers: Record<string, unknown>, settings: Record<string, unknown> = {}): string {
  const dir = makeTempDir('e2e');
  const file = join(dir, 'servers.json');
  writeFileSync(file, JSON.stringify({ mcpServers, settings }, null, 2));
  return file;
}

/** How a test's client is made, whichever way it reaches the server. */
export interface ClientSetup {
  readonly capabilities?: ClientCapabilities;
  /** Answers the server's elicitation requests (declare `elicitation` in capabilities too). */
  readonly onElicit?: (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>;
  /** The protocol revision the client speaks: unset, the 2025 handshake; `{ pin: '2026-07-28' }`, the current one. */
  readonly versionNegotiation?: ClientOptions['versionNegotiation'];
}

/** A test's client, not yet connected: the server's log messages kept in `logs`, its elicitations answered by `onElicit`. */
export function testClient(name: string, setup: ClientSetup): { client: Client; logs: LoggingMessageNotification['params'][] } {
  const client = new Client(
    { name, version: '1.0.0' },
    {
      capabilities: setup.capabilities ?? {},
      ...(setup.versionNegotiation !== undefined ? { versionNegotiation: setup.versionNegotiation } : {}),
    },
  );
  const logs: LoggingMessageNotification['params'][] = [];
  client.setNotificationHandler('notifications/message', (notification) => void logs.push(notification.params));
  const { onElicit } = setup;
  if (onElicit !== undefined) client.setRequestHandler('elicitation/create', async (request) => onElicit(request));
  return { client, logs };
}

export interface StartOptions extends ClientSetup {
  readonly env?: Record<string, string>;
  readonly cwd?: string;
  /** The executable to run instead of this checkout's bin/codemode-mcp.js (an installed package's, say). */
  readonly bin?: string;
}

export interface RunningServer {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  /** The server process. */
  readonly pid: number;
  /** Logging notifications received so far. */
  readonly logs: LoggingMessageNotification['params'][];
  /** The server's stderr so far. */
  stderr(): string;
  /** The process's exit, as code or signal. */
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  /** code_execution with these arguments. */
  run(args: Record<string, unknown>, options?: Parameters<Client['callTool']>[1]): Promise<CallToolResult>;
  /**
   * Closes the client (the server's stdin ends), waits for the process to be gone, and returns
   * the processes it started that are still alive (there should be none).
   */
  close(): Promise<number[]>;
  /** After the server has exited by other means: the processes it started that are still alive. */
  leftBehind(): Promise<number[]>;
}

/** Starts the server with these command-line arguments and connects a client to it. */
export async function startServer(args: readonly string[], options: StartOptions = {}): Promise<RunningServer> {
  const transport = new StdioClientTransport({
    command: SERVER_RUNTIME,
    args: binArgs(options.bin ?? BIN, args),
    env: { ...getDefaultEnvironment(), ...options.env },
    stderr: 'pipe',
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (process.env.CODEMODE_E2E_STDERR) process.stderr.write(chunk);
  });
  const { client, logs } = testClient('e2e-client', options);
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error('the server process has no pid');
  // The transport keeps its ChildProcess private; its exit code is what a test of shutdown reads.
  const child = (transport as unknown as { _process?: ChildProcess })._process;
  if (child === undefined) throw new Error('the SDK stdio transport no longer keeps its process as _process');
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const tracker = trackDescendants(pid);
  void exited.then(() => tracker.stop());
  const leftBehind = async (): Promise<number[]> => {
    await exited;
    return tracker.leftAlive();
  };
  return {
    client,
    transport,
    pid,
    logs,
    stderr: () => stderr,
    exited,
    run: (callArgs, callOptions) => client.callTool({ name: 'code_execution', arguments: callArgs }, callOptions),
    close: async () => {
      tracker.sample();
      await client.close();
      return leftBehind();
    },
    leftBehind,
  };
}

/**
 * Every process started under `pid` while it runs, sampled from /proc. A process orphaned by the
 * server's exit is re-parented away from it, so "no descendants after exit" would prove nothing:
 * instead each one seen is checked by pid and start time (against pid reuse) after the exit.
 */
export function trackDescendants(pid: number): { sample(): void; stop(): void; leftAlive(): Promise<number[]> } {
  const seen = new Map<number, string>();
  const sample = (): void => {
    for (const child of childPidsOf(pid)) {
      const started = startTimeOf(child);
      if (started !== undefined && !seen.has(child)) seen.set(child, started);
    }
  };
  const timer = setInterval(sample, 50);
  timer.unref();
  sample();
  const alive = (): number[] => [...seen].filter(([child, started]) => startTimeOf(child) === started).map(([child]) => child);
  return {
    sample,
    stop: () => clearInterval(timer),
    // A child ends a moment after the server (killed as it ended, or seeing its parent gone): waited
    // for, with the test's timeout as the bound, so one left behind fails the test by name.
    leftAlive: async () => {
      await until(
        "the server's processes to be gone",
        () => alive().length === 0,
        () =>
          `still alive: ${alive()
            .map((child) => `${child} (${commandLineOf(child) ?? '?'})`)
            .join(', ')}`,
      );
      return alive();
    },
  };
}

/** A code_execution answer's structuredContent: the same facts as its text. */
export function structuredOf(result: CallToolResult): Record<string, unknown> {
  return (result.structuredContent ?? {}) as Record<string, unknown>;
}

/** The value a finished script returned: from structuredContent while it is small, else from the text's `value:` line. */
export function valueOf(result: CallToolResult): unknown {
  const structured = structuredOf(result);
  if (!('valueChars' in structured)) return structured.value;
  const line = textOf(result)
    .split('\n')
    .find((candidate) => candidate.startsWith('value: '));
  return line === undefined ? undefined : JSON.parse(line.slice('value: '.length));
}

/** All the text blocks of a result, joined. */
export function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');
}

/** Resolves with the first line of the server's stderr matching `pattern`, once there is one (the test's timeout is the bound). */
export function stderrLine(server: { stderr(): string }, pattern: RegExp): Promise<string> {
  return until(
    `a line of the server's stderr matching ${String(pattern)}`,
    () =>
      server
        .stderr()
        .split('\n')
        .find((candidate) => pattern.test(candidate)),
    () => `it said:\n${server.stderr().slice(-2_000)}`,
  );
}

/** Runs the bin to its end (a one-shot command), and returns what it printed, its exit code and the processes it left. */
export async function runBin(
  args: string[],
  input?: string,
): Promise<{ stdout: string; stderr: string; exitCode: number | undefined; left: number[] }> {
  const subprocess = execa(SERVER_RUNTIME, binArgs(BIN, args), {
    reject: false,
    ...(input !== undefined ? { input } : { stdin: 'ignore' as const }),
  });
  const tracker = trackDescendants(subprocess.pid!);
  const result = await subprocess;
  tracker.stop();
  return { stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode, left: await tracker.leftAlive() };
}
