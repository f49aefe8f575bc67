import type { OutputSlice } from './types.js';

/** 8,000: characters kept from the start and from the end of a return's output; the middle is counted. */
export const OUTPUT_KEPT_CHARS = 8_000;

/** A script's output since its last return: the first and last OUTPUT_KEPT_CHARS characters. */
export class OutputWindow {
  private head = '';
  private tail = '';
  private dropped = 0;

  append(text: string): void {
    if (this.head.length < OUTPUT_KEPT_CHARS) {
      const room = OUTPUT_KEPT_CHARS - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text.length === 0) return;
    this.tail += text;
    if (this.tail.length > OUTPUT_KEPT_CHARS) {
      this.dropped += this.tail.length - OUTPUT_KEPT_CHARS;
      this.tail = this.tail.slice(-OUTPUT_KEPT_CHARS);
    }
  }

  /** What was written since the last take, and a fresh start. */
  take(): OutputSlice {
    const slice = { head: this.head, tail: this.tail, dropped: this.dropped };
    this.head = '';
    this.tail = '';
    this.dropped = 0;
    return slice;
  }
}
