/**
 * The server driven over its pipes byte by byte, for what an SDK client would never send: a line
 * that isn't JSON, a request before initialize, a 100 MB message. Answers are read off stdout as
 * lines and matched by id.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
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

export class RawServer {
  readonly process: ChildProcessWithoutNullStreams;
  readonly pid: number;
  /** Every line the server wrote to stdout, parsed, in order. */
  readonly answers: RawAnswer[] = [];
  private stderrText = '';
  private stdoutRest = '';
  private readonly tracker: ReturnType<typeof trackDescendants>;
  readonly exited: Promise<void>;

  constructor(args: readonly string[]) {
    this.process = spawn(SERVER_RUNTIME, binArgs(BIN, args), { stdio: ['pipe', 'pipe', 'pipe'] });
    if (this.process.pid === undefined) throw new Error('the server did not start');
    this.pid = this.process.pid;
    this.tracker = trackDescendants(this.pid);
    this.exited = once(this.process, 'exit').then(() => this.tracker.stop());
    this.process.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (this.stdoutRest + chunk).split('\n');
      this.stdoutRest = lines.pop()!;
      for (const line of lines) this.answers.push(JSON.parse(line) as RawAnswer);
    });
    this.process.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderrText += chunk;
      if (process.env.CODEMODE_E2E_STDERR) process.stderr.write(chunk);
    });
  }

  stderr(): string {
    return this.stderrText;
  }

  /** Writes one message as a line, or raw bytes as they are; resolves once the pipe took them. */
  async write(data: object | string | Buffer): Promise<void> {
    const bytes = Buffer.isBuffer(data) ? data : typeof data === 'string' ? data : `${JSON.stringify(data)}\n`;
    if (!this.process.stdin.write(bytes)) await once(this.process.stdin, 'drain');
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
    return this.until(() => this.stderrText.match(pattern) ?? undefined, `stderr matching ${pattern}`);
  }

  /** Ends stdin, waits for the exit, and returns the processes it started that are still alive. */
  async close(): Promise<number[]> {
    this.tracker.sample();
    this.process.stdin.end();
    await this.exited;
    return this.tracker.leftAlive();
  }

  private until<T>(found: () => T | undefined, what: string): Promise<T> {
    return until(what, found, () => `stderr:\n${this.stderrText.slice(-2_000)}`);
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
