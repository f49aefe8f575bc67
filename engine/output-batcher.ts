import { OUTPUT_BATCH_MAX_CHARS, OUTPUT_FLUSH_MS } from '../protocol/contract.js';

/**
 * The script's output on its way to the parent, in batches of at most OUTPUT_BATCH_MAX_CHARS.
 * The head/tail bound lives in the parent, which alone knows when it will next return.
 */
export class OutputBatcher {
  private pending = '';
  private pendingSince = 0;

  constructor(private readonly sendBatch: (text: string) => void) {}

  write(text: string): void {
    if (text.length === 0) return;
    if (this.pending.length === 0) this.pendingSince = performance.now();
    this.pending += text;
    if (this.pending.length >= OUTPUT_BATCH_MAX_CHARS) this.flush();
  }

  /** Sends output that has waited OUTPUT_FLUSH_MS, for a script computing without pause; true when it did. */
  flushIfStale(now: number): boolean {
    if (this.pending.length === 0 || now - this.pendingSince < OUTPUT_FLUSH_MS) return false;
    this.flush();
    return true;
  }

  flush(): void {
    let text = this.pending;
    this.pending = '';
    while (text.length > 0) {
      let cut = Math.min(text.length, OUTPUT_BATCH_MAX_CHARS);
      // Keep a surrogate pair within one batch.
      if (cut < text.length && isHighSurrogate(text.charCodeAt(cut - 1))) cut -= 1;
      this.sendBatch(text.slice(0, cut));
      text = text.slice(cut);
    }
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
