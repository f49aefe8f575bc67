/**
 * The server as `bin/codemode-mcp.js` serves over stdio (the same command line, parseCli and
 * serveStdio with our own stdio transport and request gate), but in the test's own process, with a
 * pair of streams for its stdin and stdout and the SDK's client on the other end. What a script
 * runs in stays real: its child processes, the engine, the upstreams (a config's commands). Only
 * what a process of its own shows (signals, exits, descriptors, stderr as written, the bundle)
 * needs startServer (mcp-client.ts) instead.
 */
import { PassThrough, type Readable, type Writable } from 'node:stream';
import {
  Client,
  ReadBuffer,
  serializeMessage,
  type CallToolResult,
  type ClientCapabilities,
  type ClientOptions,
  type ElicitRequest,
  type ElicitResult,
  type JSONRPCMessage,
  type LoggingMessageNotification,
  type Transport,
} from '@modelcontextprotocol/client';
import { isCliExit, parseCli } from '../../src/cli/parse-cli.js';
import { serveStdio } from '../../src/commands/serve-stdio/serve-stdio.js';
import { shows, type Log, type LogLevel } from '../../src/support/log.js';
import { revealControls } from '../../src/support/echo.js';
import { deferred } from '../../src/support/deferred.js';
import { childPidsOf, commandLineOf, directChildrenOf, startTimeOf } from './processes.js';
import { until } from './waiting.js';

export interface InProcessOptions {
  readonly capabilities?: ClientCapabilities;
  /** Answers the server's elicitation requests (declare `elicitation` in capabilities too). */
  readonly onElicit?: (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>;
  /** A relative --config is taken from here. */
  readonly cwd?: string;
  /** Where the config's `${VAR}` are looked up; unset, this process's environment. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The protocol revision the client speaks: unset, the 2025 handshake; `{ pin: '2026-07-28' }`, the current one. */
  readonly versionNegotiation?: ClientOptions['versionNegotiation'];
  /** Serve as if stderr were a person's terminal (src/commands/serve-stdio/serve-stdio.ts, ServeIo.terminal). */
  readonly terminal?: boolean;
}

export interface InProcessServer {
  readonly client: Client;
  /** Logging notifications received so far. */
  readonly logs: LoggingMessageNotification['params'][];
  /** What the server logged so far, a line each, at its --log-level (its stderr, were it a process). */
  stderr(): string;
  /** Every byte the server wrote to its client so far (its stdout, were it a process), as text. */
  received(): string;
  /** The server's end, with its exit code. */
  readonly exited: Promise<{ readonly code: number }>;
  /** code_execution with these arguments. */
  run(args: Record<string, unknown>, options?: Parameters<Client['callTool']>[1]): Promise<CallToolResult>;
  /**
   * Closes the client (the server's stdin ends), waits for the server to have shut down, and
   * returns the processes it started that are still alive (there should be none).
   */
  close(): Promise<number[]>;
}

/** Serves `args` (as bin/codemode-mcp.js would take them) in this process, with a client connected. */
export async function startInProcess(args: readonly string[], options: InProcessOptions = {}): Promise<InProcessServer> {
  const invocation = parseCli(args, {
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.env !== undefined ? { env: options.env } : {}),
  });
  if (isCliExit(invocation))
    throw new Error(`the command line was refused (exit ${invocation.exit}): ${invocation.stderr ?? ''}`);
  let stderr = '';
  const level: LogLevel = invocation.logging.logLevel;
  // As the process's log writes a line (support/log.ts): at its level, what acts on a terminal escaped.
  const log: Log = (line, at = 'info') => {
    if (shows(level, at)) stderr += `${revealControls(line, 'lines')}\n`;
  };
  const [stdin, stdout] = [new PassThrough(), new PassThrough()];
  const written: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => void written.push(chunk));
  const exited = deferred<{ code: number }>();
  const started = trackStarted();
  void exited.promise.then(() => started.stop());
  void serveStdio(invocation, undefined, log, {
    stdin,
    stdout,
    exit: (code) => exited.resolve({ code }),
    ownsProcess: false,
    terminal: options.terminal === true,
  });

  const client = new Client(
    { name: 'e2e-client', version: '1.0.0' },
    {
      capabilities: options.capabilities ?? {},
      ...(options.versionNegotiation !== undefined ? { versionNegotiation: options.versionNegotiation } : {}),
    },
  );
  const logs: LoggingMessageNotification['params'][] = [];
  client.setNotificationHandler('notifications/message', (notification) => void logs.push(notification.params));
  if (options.onElicit !== undefined) {
    const onElicit = options.onElicit;
    client.setRequestHandler('elicitation/create', async (request) => onElicit(request));
  }
  await client.connect(new StreamClientTransport(stdout, stdin));
  return {
    client,
    logs,
    stderr: () => stderr,
    received: () => Buffer.concat(written).toString('utf8'),
    exited: exited.promise,
    run: (callArgs, callOptions) => client.callTool({ name: 'code_execution', arguments: callArgs }, callOptions),
    close: async () => {
      started.sample();
      await client.close();
      await exited.promise;
      return started.leftAlive();
    },
  };
}

/**
 * The processes this server starts (its script children and upstreams, and theirs), sampled from
 * /proc while it serves: the test's own process's children that were not there before, less a
 * codemode-mcp the test started itself meanwhile. Each is checked by pid and start time (against
 * pid reuse) once the server has ended.
 */
function trackStarted(): { sample(): void; stop(): void; leftAlive(): Promise<number[]> } {
  const before = new Set(directChildrenOf(process.pid));
  const seen = new Map<number, string>();
  const sample = (): void => {
    for (const child of directChildrenOf(process.pid)) {
      if (before.has(child) || seen.has(child) || (commandLineOf(child) ?? '').includes('codemode-mcp.js')) continue;
      for (const pid of [child, ...childPidsOf(child)]) {
        const at = startTimeOf(pid);
        if (at !== undefined && !seen.has(pid)) seen.set(pid, at);
      }
    }
  };
  const timer = setInterval(sample, 50);
  timer.unref();
  sample();
  const alive = (): number[] => [...seen].filter(([pid, at]) => startTimeOf(pid) === at).map(([pid]) => pid);
  return {
    sample,
    stop: () => clearInterval(timer),
    // A child ends a moment after the server's shutdown: waited for, with the test's timeout as the bound.
    leftAlive: async () => {
      await until(
        "the in-process server's processes to be gone",
        () => alive().length === 0,
        () =>
          `still alive: ${alive()
            .map((pid) => `${pid} (${commandLineOf(pid) ?? '?'})`)
            .join(', ')}`,
      );
      return alive();
    },
  };
}

/** The client's side of a stdio connection over two streams: a JSON line a message, as the SDK's stdio client writes them. */
class StreamClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer = new ReadBuffer();
  private closed = false;

  constructor(
    private readonly fromServer: Readable,
    private readonly toServer: Writable,
  ) {}

  start(): Promise<void> {
    this.fromServer.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let message = this.next(); message !== null; message = this.next()) this.onmessage?.(message);
    });
    this.fromServer.on('end', () => void this.close());
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      this.toServer.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.toServer.end();
    this.onclose?.();
    return Promise.resolve();
  }

  private next(): JSONRPCMessage | null {
    try {
      return this.buffer.readMessage();
    } catch (error) {
      this.onerror?.(error as Error);
      return null;
    }
  }
}
