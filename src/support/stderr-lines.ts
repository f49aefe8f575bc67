import { StringDecoder } from 'node:string_decoder';
import type { Stream } from 'node:stream';

/** A line of a process's stderr longer than this is passed on in pieces of this size. */
export const STDERR_LINE_MAX_CHARS = 16 * 1024;

/** How many of a process's last stderr lines are kept to explain a failed start or an exit. */
export const STDERR_TAIL_LINES = 5;

/**
 * Passes the stderr of a process we started (an upstream, a script's child) on line by line, each
 * line prefixed (`[<name>] `), and keeps the last few lines so a failed start or an exit can say
 * what the process said before it died. With `maxChars`, what is passed on in all is bounded too:
 * past it, lines are counted, not written, and one line says how many were dropped.
 */
export class StderrLines {
  readonly tail: string[] = [];
  private pending = '';
  private readonly decoder = new StringDecoder('utf8');
  private written = 0;
  private dropped = 0;
  /** Settles once each attached stream has ended (or failed). */
  private readonly ends: Array<Promise<void>> = [];

  constructor(
    private readonly prefix: string,
    private readonly write: (line: string) => void,
    private readonly maxChars = Number.POSITIVE_INFINITY,
  ) {}

  attach(stream: Stream): void {
    stream.on('data', (chunk: Buffer | string) => this.push(typeof chunk === 'string' ? chunk : this.decoder.write(chunk)));
    this.ends.push(
      new Promise((resolve) => {
        stream.on('end', () => {
          this.flush();
          resolve();
        });
        stream.on('error', () => {
          this.flush();
          resolve();
        });
        stream.on('close', () => resolve());
      }),
    );
  }

  /**
   * Settles once every attached stream has ended: a process's exit can come before the last of
   * its stderr has been read, and what it last said is what explains its failure.
   */
  async ended(): Promise<void> {
    await Promise.all(this.ends);
  }

  private push(text: string): void {
    this.pending += text;
    let newline: number;
    while ((newline = this.pending.indexOf('\n')) !== -1) {
      this.emit(this.pending.slice(0, newline).replace(/\r$/, ''));
      this.pending = this.pending.slice(newline + 1);
    }
    while (this.pending.length > STDERR_LINE_MAX_CHARS) {
      this.emit(this.pending.slice(0, STDERR_LINE_MAX_CHARS));
      this.pending = this.pending.slice(STDERR_LINE_MAX_CHARS);
    }
  }

  private flush(): void {
    this.pending += this.decoder.end();
    if (this.pending !== '') this.emit(this.pending);
    this.pending = '';
    if (this.dropped > 0)
      this.write(`${this.prefix}(${this.dropped} more lines of stderr not logged: past ${this.maxChars} characters)`);
    this.dropped = 0;
  }

  private emit(line: string): void {
    if (line.trim() !== '') {
      this.tail.push(line);
      if (this.tail.length > STDERR_TAIL_LINES) this.tail.shift();
    }
    this.written += line.length;
    if (this.written > this.maxChars) {
      if (this.dropped === 0)
        this.write(`${this.prefix}(stderr past ${this.maxChars} characters: further lines are counted, not logged)`);
      this.dropped++;
      return;
    }
    this.write(`${this.prefix}${line}`);
  }
}
