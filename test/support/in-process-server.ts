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
  type JSONRPCMessage,
  type LoggingMessageNotification,
  type Transport,
} from '@modelcontextprotocol/client';
import { isCliExit, parseCli } from '../../src/cli/parse-cli.js';
import { serveStdio } from '../../src/commands/serve-stdio/serve-stdio.js';
import { shows, type Log, type LogLevel } from '../../src/support/log.js';
import { revealControls } from '../../src/support/echo.js';
import { deferred } from '../../src/support/deferred.js';
import { childPidsOf, commandLineOf, directChildrenOf, startTimeOf, statFieldsOf } from './processes.js';
import { until } from './waiting.js';
import { RawChannel } from './raw-client.js';
import { testClient, type ClientSetup } from './mcp-client.js';
import { expect, onTestFinished } from 'vitest';

export interface InProcessOptions extends ClientSetup {
  /** A relative --config is taken from here. */
  readonly cwd?: string;
  /** Where the config's `${VAR}` are looked up; unset, this process's environment. */
  readonly env?: Readonly<Record<string, string | undefined>>;
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

/** A server serving over a pair of streams in this process: its stdin and stdout, its log and its end. */
interface StreamsServed {
  readonly stdin: PassThrough;
  readonly stdout: PassThrough;
  readonly stderr: () => string;
  /** Every byte it wrote to its stdout so far, as text. */
  readonly received: () => string;
  readonly exited: Promise<{ readonly code: number }>;
  /** Samples the processes it started now (before an end that may take them). */
  readonly sample: () => void;
  /** Once it has ended: the processes it started that are still alive. */
  readonly leftAlive: () => Promise<number[]>;
}

/** Serves `args` (as bin/codemode-mcp.js would take them) over stdio, its stdin and stdout a pair of streams. */
function serveOverStreams(args: readonly string[], options: InProcessOptions): StreamsServed {
  const invocation = parseCli(args, {
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.env !== undefined ? { env: options.env } : {}),
  });
  if (isCliExit(invocation))
    throw new Error(`the command line was refused (exit ${invocation.exit}): ${invocation.stderr ?? ''}`);
  const { log, stderr } = serverLog(invocation.logging.logLevel);
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
  return {
    stdin,
    stdout,
    stderr,
    received: () => Buffer.concat(written).toString('utf8'),
    exited: exited.promise,
    sample: started.sample,
    leftAlive: started.leftAlive,
  };
}

/** Serves `args` (as bin/codemode-mcp.js would take them) in this process, with a client connected. */
export async function startInProcess(args: readonly string[], options: InProcessOptions = {}): Promise<InProcessServer> {
  const { stdin, stdout, stderr, received, exited, sample, leftAlive } = serveOverStreams(args, options);
  const { client, logs } = testClient('e2e-client', options);
  await client.connect(new StreamClientTransport(stdout, stdin));
  return {
    client,
    logs,
    stderr,
    received,
    exited,
    run: (callArgs, callOptions) => client.callTool({ name: 'code_execution', arguments: callArgs }, callOptions),
    close: async () => {
      sample();
      await client.close();
      await exited;
      return leftAlive();
    },
  };
}

/**
 * The server serving `args` in this process, driven line by line over its stdin and stdout as
 * RawServer drives the process (raw-client.ts): closed when the test ends, which fails if it left a
 * process alive.
 */
export function rawInProcess(args: readonly string[]): RawChannel {
  const served = serveOverStreams(args, {});
  const raw = new (class extends RawChannel {
    stderr(): string {
      return served.stderr();
    }
    async close(): Promise<number[]> {
      served.sample();
      served.stdin.end();
      await served.exited;
      return served.leftAlive();
    }
  })(served.stdin, served.stdout);
  onTestFinished(async () => {
    expect(await raw.close()).toEqual([]);
  });
  return raw;
}

/**
 * What a server serving in this process logs, a line each, as its stderr would show it at `level`;
 * `write` adds what a command writes to stderr itself, as it is. `onLine` is told each line as it comes.
 */
export function serverLog(
  level: LogLevel,
  onLine: (line: string) => void = () => {},
): {
  readonly log: Log;
  readonly write: (text: string) => void;
  readonly stderr: () => string;
} {
  let stderr = '';
  let partial = '';
  const write = (text: string): void => {
    stderr += text;
    const lines = (partial + text).split('\n');
    partial = lines.pop()!;
    for (const line of lines) onLine(line);
  };
  return {
    // As the process's log writes a line (support/log.ts): at its level, what acts on a terminal escaped.
    log: (line, at = 'info') => {
      if (shows(level, at)) write(`${revealControls(line, 'lines')}\n`);
    },
    write,
    stderr: () => stderr,
  };
}

/** The trackers of the servers serving in this process now: a process two of them see is the last one's to end. */
const serving = new Set<{ readonly seen: ReadonlyMap<number, string> }>();

/**
 * The processes a server serving in this process starts (its script children and upstreams, and
 * theirs), sampled from /proc while it serves: the test's own process's children that were not
 * there before, less a codemode-mcp the test started itself meanwhile. Each is checked by pid and
 * start time (against pid reuse) once the server has ended. A process that another server still
 * serving here has seen too may be that one's: it is left to that server's end to check.
 */
export function trackStarted(): {
  readonly sample: () => void;
  readonly stop: () => void;
  readonly leftAlive: () => Promise<number[]>;
} {
  const before = new Set(directChildrenOf(process.pid));
  const seen = new Map<number, string>();
  const tracker = { seen };
  serving.add(tracker);
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
  const othersSee = (pid: number, at: string): boolean =>
    [...serving].some((other) => other !== tracker && other.seen.get(pid) === at);
  // An exited child of this process stays a zombie until this process reaps it: not gone until then.
  const alive = (): number[] =>
    [...seen].filter(([pid, at]) => statFieldsOf(pid)?.[19] === at && !othersSee(pid, at)).map(([pid]) => pid);
  return {
    sample,
    stop: () => {
      clearInterval(timer);
      serving.delete(tracker);
    },
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
