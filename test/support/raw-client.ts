/**
 * The server driven over its pipes byte by byte, for what an SDK client would never send: a line
 * that isn't JSON, a request before initialize, a 100 MB message. Answers are read off stdout as
 * lines and matched by id.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { expect, onTestFinished } from 'vitest';
import { BIN, SERVER_RUNTIME, binArgs, trackDescendants } from './mcp-client.js';
import { until } from './waiting.js';

export interface RawAnswer {
  readonly id?: string | number;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly code: number; readonly message: string };
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-client', version: '1.0.0' } },
} as const;

/** A server's stdin and stdout driven line by line, whatever serves it: a process (RawServer) or this one (in-process-server.ts). */
export abstract class RawChannel {
  /** Every line the server wrote to stdout, parsed, in order. */
  readonly answers: RawAnswer[] = [];
  private stdoutRest = '';

  constructor(
    private readonly stdin: Writable,
    stdout: Readable,
  ) {
    stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (this.stdoutRest + chunk).split('\n');
      this.stdoutRest = lines.pop()!;
      for (const line of lines) this.answers.push(JSON.parse(line) as RawAnswer);
    });
  }

  /** What the server logged so far. */
  abstract stderr(): string;

  /** Ends stdin, waits for the server's end, and returns the processes it started that are still alive. */
  abstract close(): Promise<number[]>;

  /** Writes one message as a line, or raw bytes as they are; resolves once the pipe took them. */
  async write(data: object | string | Buffer): Promise<void> {
    const bytes = Buffer.isBuffer(data) ? data : typeof data === 'string' ? data : `${JSON.stringify(data)}\n`;
    if (!this.stdin.write(bytes)) await once(this.stdin, 'drain');
  }

  /** Sends `initialize` (and `initialized`) with this id and waits for its answer. */
  async initialize(id: string | number = 'init'): Promise<RawAnswer> {
    await this.write({ ...INITIALIZE, id });
    const answer = await this.answerTo(id);
    await this.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return answer;
  }

  /** The answer to request `id`, once it arrives (the test's timeout is the bound). */
  answerTo(id: string | number): Promise<RawAnswer> {
    return this.until(() => this.answers.find((answer) => answer.id === id), `an answer to request ${JSON.stringify(id)}`);
  }

  /** Waits for stderr to match. */
  stderrMatching(pattern: RegExp): Promise<RegExpMatchArray> {
    return this.until(() => this.stderr().match(pattern) ?? undefined, `stderr matching ${pattern}`);
  }

  private until<T>(found: () => T | undefined, what: string): Promise<T> {
    return until(what, found, () => `stderr:\n${this.stderr().slice(-2_000)}`);
  }
}

/** bin/codemode-mcp.js started with `args`, driven over its pipes. */
export class RawServer extends RawChannel {
  readonly process: ChildProcessWithoutNullStreams;
  readonly pid: number;
  private stderrText = '';
  private readonly tracker: ReturnType<typeof trackDescendants>;
  readonly exited: Promise<void>;

  constructor(args: readonly string[]) {
    const child = spawn(SERVER_RUNTIME, binArgs(BIN, args), { stdio: ['pipe', 'pipe', 'pipe'] });
    super(child.stdin, child.stdout);
    this.process = child;
    if (this.process.pid === undefined) throw new Error('the server did not start');
    this.pid = this.process.pid;
    this.tracker = trackDescendants(this.pid);
    this.exited = once(this.process, 'exit').then(() => this.tracker.stop());
    this.process.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderrText += chunk;
      if (process.env.CODEMODE_E2E_STDERR) process.stderr.write(chunk);
    });
  }

  stderr(): string {
    return this.stderrText;
  }

  async close(): Promise<number[]> {
    this.tracker.sample();
    this.process.stdin.end();
    await this.exited;
    return this.tracker.leftAlive();
  }
}

/** A RawServer for this test: closed when the test ends, which fails if it left a process alive. */
export function rawServer(args: readonly string[]): RawServer {
  const server = new RawServer(args);
  onTestFinished(async () => {
    expect(await server.close()).toEqual([]);
  });
  return server;
}
