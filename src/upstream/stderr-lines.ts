import { StringDecoder } from 'node:string_decoder';
import type { Stream } from 'node:stream';

/** A line of an upstream's stderr longer than this is passed on in pieces of this size. */
export const STDERR_LINE_MAX_CHARS = 16 * 1024;

/** How many of an upstream's last stderr lines are kept to explain a failed start. */
export const STDERR_TAIL_LINES = 5;

/**
 * Passes an upstream's stderr on line by line, each line prefixed with `[<name>] `, and keeps the
 * last few lines so a failed start can say what the server said before it died.
 */
export class StderrLines {
  readonly tail: string[] = [];
  private pending = '';
  private readonly decoder = new StringDecoder('utf8');

  constructor(
    private readonly prefix: string,
    private readonly write: (line: string) => void,
  ) {}

  attach(stream: Stream): void {
    stream.on('data', (chunk: Buffer | string) => this.push(typeof chunk === 'string' ? chunk : this.decoder.write(chunk)));
    stream.on('end', () => this.flush());
    stream.on('error', () => this.flush());
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
  }

  private emit(line: string): void {
    if (line.trim() !== '') {
      this.tail.push(line);
      if (this.tail.length > STDERR_TAIL_LINES) this.tail.shift();
    }
    this.write(`${this.prefix}${line}`);
  }
}
