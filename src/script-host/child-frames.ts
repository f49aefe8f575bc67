import { FRAME_MAX_BYTES, PROTOCOL_VERSION, type Breach, type ChildMessage } from '../../protocol/contract.js';
import { FrameDecoder } from '../../protocol/frames.js';
import { checkChildFrame } from './check-message.js';

export interface ChildFrameEvents {
  /** The child said it is ready, in the protocol's version. */
  ready(): void;
  /** A checked message after the ready. */
  message(message: ChildMessage): void;
  /** The first breach: nothing is read after it. */
  breach(reason: Breach): void;
}

/**
 * The child's output read as frames: decoded (a header past FRAME_MAX_BYTES stops the reading
 * before its body is buffered), each checked (check-message.ts), and in order: `ready` first, in
 * this server's protocol version, and never again until the child is reset (expectReady).
 */
export class ChildFrameReader {
  private readonly decoder = new FrameDecoder(FRAME_MAX_BYTES);
  private isReady = false;
  private broken = false;

  constructor(private readonly events: ChildFrameEvents) {}

  /** The child was sent `reset`: its next frame is a `ready` again, and any other is a breach. */
  expectReady(): void {
    this.isReady = false;
  }

  push(chunk: Uint8Array): void {
    if (this.broken) return;
    const outcome = this.decoder.push(chunk, (body) => {
      if (!this.broken) this.onFrame(body);
    });
    if (outcome === 'too_large') this.breach('FRAME_TOO_LARGE');
  }

  private onFrame(body: Buffer): void {
    const checked = checkChildFrame(body);
    if (!checked.ok) return this.breach(checked.breach);
    const message = checked.message;
    if (this.isReady) {
      if (message.t === 'ready') return this.breach('MESSAGE_UNEXPECTED');
      return this.events.message(message);
    }
    if (message.t !== 'ready') return this.breach('MESSAGE_UNEXPECTED');
    if (message.v !== PROTOCOL_VERSION) return this.breach('PROTOCOL_VERSION');
    this.isReady = true;
    this.events.ready();
  }

  private breach(reason: Breach): void {
    this.broken = true;
    this.events.breach(reason);
  }
}
