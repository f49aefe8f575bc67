/**
 * The server's side of MCP over stdio, on the SDK's `Transport` interface: messages in on stdin,
 * one JSON line each, read by BoundedLineReader; messages out on stdout, one at a time.
 *
 * Our own, because the SDK's StdioServerTransport ends the connection when one message passes
 * 10 MiB (its ReadBuffer throws), and drops with a zod dump on stderr any line its schema
 * rejects, leaving a request unanswered. Here such lines are handed to `onrejected` with what
 * could be read of them (id, role, what is wrong), for the server to answer; nothing closes.
 */
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { groupThousands } from '../../common/format-numbers.js';
import { BoundedLineReader } from '../json-rpc/bounded-lines.js';
import { parseLine, type ParsedLine, type Rejection } from '../json-rpc/parse-line.js';
import { logFailure } from '../support/log.js';

export interface StdioServerTransportOptions {
  /** The longest message read, in bytes; a longer line is rejected as `oversize`. */
  readonly maxMessageBytes: number;
  readonly stdin?: Readable;
  readonly stdout?: Writable;
}

export class StdioServerTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  /** A line that isn't a message the SDK accepts. Unset, it is reported to `onerror`. */
  onrejected?: ((rejection: Rejection) => void) | undefined;

  private readonly stdin: Readable;
  private readonly stdout: Writable;
  private readonly reader: BoundedLineReader;
  /** Settles when the message sent last has been handed to the pipe: the next one waits for it. */
  private lastWrite: Promise<void> = Promise.resolve();
  private started = false;
  private closed = false;

  constructor(options: StdioServerTransportOptions) {
    this.stdin = options.stdin ?? process.stdin;
    this.stdout = options.stdout ?? process.stdout;
    this.reader = new BoundedLineReader(options.maxMessageBytes, {
      line: (text) => this.receive(parseLine(text)),
      oversize: (line) => this.reject({ kind: 'oversize', ...line }),
    });
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- async, so that its throw is the rejection the Transport interface promises
  async start(): Promise<void> {
    if (this.started) throw new Error('StdioServerTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStdinError);
    this.stdin.on('end', this.onEnd);
    this.stdin.on('close', this.onEnd);
    this.stdout.on('error', this.onStdoutError);
    if (this.stdin.readableEnded || this.stdin.destroyed) setImmediate(this.onEnd);
  }

  /**
   * Writes one message. Messages go out one at a time, each after the pipe has taken the one
   * before (`drain`), so a client slow to read holds at most one serialized message in our memory.
   */
  send(message: JSONRPCMessage): Promise<void> {
    const write = this.lastWrite.then(() => this.write(`${JSON.stringify(message)}\n`));
    // The caller gets this write's failure; the next write waits on it either way.
    this.lastWrite = write.catch(() => {});
    return write;
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- async to keep the Transport interface's Promise, whatever it throws
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStdinError);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('close', this.onEnd);
    // A write that fails after the close (the client is gone) is no news.
    this.stdout.off('error', this.onStdoutError);
    this.stdout.on('error', logFailure('a write to the client after the close'));
    this.stdin.pause();
    this.reader.end();
    this.onclose?.();
  }

  private write(line: string): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the connection to the client is closed'));
    return new Promise((resolve, reject) => {
      const settle = (error?: Error | null): void => {
        this.stdout.off('drain', onDrain);
        this.stdout.off('close', onClose);
        if (error) reject(error);
        else resolve();
      };
      const onDrain = (): void => settle();
      const onClose = (): void => settle(new Error('stdout closed before the message was written'));
      if (this.stdout.write(line, (error) => error && settle(error))) {
        resolve();
        return;
      }
      this.stdout.once('drain', onDrain);
      this.stdout.once('close', onClose);
    });
  }

  private receive(parsed: ParsedLine): void {
    if (parsed.kind === 'message') this.onmessage?.(parsed.message);
    else this.reject(parsed);
  }

  private reject(rejection: Rejection): void {
    if (this.onrejected !== undefined) this.onrejected(rejection);
    else this.onerror?.(new Error(`a line from the client was not a message (${rejection.kind})`));
  }

  private readonly onData = (chunk: Buffer | string): void => {
    this.reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };

  private readonly onEnd = (): void => {
    const left = this.reader.end();
    if (left > 0)
      this.onerror?.(
        new Error(
          `the client's input ended inside a message (${groupThousands(left)} bytes without a newline), which was dropped`,
        ),
      );
    void this.close();
  };

  private readonly onStdinError = (error: Error): void => {
    this.onerror?.(error);
  };

  private readonly onStdoutError = (error: Error): void => {
    this.onerror?.(error);
    void this.close();
  };
}
