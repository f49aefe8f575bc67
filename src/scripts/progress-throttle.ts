/** 250 ms: the least time between two progress notifications of one watch; what comes between is joined. */
export const PROGRESS_INTERVAL_MS = 250;

/** 2,000: characters one progress notification carries; the rest waits for the watch's answer. */
export const PROGRESS_MESSAGE_MAX_CHARS = 2_000;

/**
 * Progress notifications for one watch, at most one per PROGRESS_INTERVAL_MS: a script that
 * prints on every turn would otherwise send the client a notification per output batch. Nothing
 * is lost by the joining: the answer carries the whole output.
 */
export class ProgressThrottle {
  private pending = '';
  private lastSentAt = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  /** Settles once every notification sent so far is written: the watch's answer goes after them. */
  private sending: Promise<unknown> = Promise.resolve();

  /** `send` may return a promise of the notification written (never rejecting). */
  constructor(private readonly send: (message: string) => unknown) {}

  push(message: string): void {
    const now = performance.now();
    if (this.timer === undefined && now - this.lastSentAt >= PROGRESS_INTERVAL_MS) {
      this.lastSentAt = now;
      this.sent(this.send(cut(message)));
      return;
    }
    const joiner = this.pending === '' || this.pending.endsWith('\n') ? '' : '\n';
    this.pending = cut(this.pending + joiner + message);
    this.timer ??= setTimeout(
      () => {
        this.timer = undefined;
        this.lastSentAt = performance.now();
        const joined = this.pending;
        this.pending = '';
        this.sent(this.send(joined));
      },
      PROGRESS_INTERVAL_MS - (now - this.lastSentAt),
    );
  }

  /**
   * The watch is over: what is pending goes in its answer instead. Resolves once what was sent is
   * written, so that the answer never overtakes a notification about the same script.
   */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = '';
    await this.sending;
  }

  private sent(written: unknown): void {
    const previous = this.sending;
    this.sending = Promise.all([previous, written]);
  }
}

function cut(text: string): string {
  return text.length <= PROGRESS_MESSAGE_MAX_CHARS ? text : `${text.slice(0, PROGRESS_MESSAGE_MAX_CHARS)}…`;
}
