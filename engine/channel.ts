import { writeSync } from 'node:fs';
import type { ChildMessage, ParentMessage } from '../protocol/contract.js';
import { FrameDecoder, encodeFrame, splitFrameBody } from '../protocol/frames.js';

const TO_PARENT_FD = 3;
/** The parent is trusted; this only keeps a corrupt length from allocating without bound. */
const FROM_PARENT_MAX_BYTES = 0x7fff_ffff;
const sleepCell = new Int32Array(new SharedArrayBuffer(4));
/** 64 KiB: frames waiting for the end of the turn are written at once past this. */
const WRITE_AT_BYTES = 64 * 1024;

/** Where a script run's messages go: the parent, or a warm-up run's stand-in. */
export interface MessageSink {
  /** `payload`: after the message's JSON, as bytes or as text written as UTF-8 (an ending's value). */
  send(message: ChildMessage, payload?: Uint8Array | string): void;
  /** Writes now what send() has gathered: before an exit, and from the interrupt handler mid-loop. */
  flush(): void;
}

/**
 * The child's end of the channel: frames from the parent on stdin, frames to the parent on fd 3
 * written with writeSync, because the engine sends while QuickJS is mid-call (output, calls).
 * Frames sent in one turn of the event loop (the results of one read, say, and the calls they
 * let the script make) go out in one write, at the end of the turn.
 */
export class ParentChannel implements MessageSink {
  private readonly decoder = new FrameDecoder(FROM_PARENT_MAX_BYTES);
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private flushScheduled = false;

  constructor(
    onMessage: (message: ParentMessage, payload: Buffer) => void,
    private readonly onParentGone: () => never,
  ) {
    process.stdin.on('data', (chunk: Buffer) => {
      const outcome = this.decoder.push(chunk, (body) => {
        const { json, payload } = splitFrameBody(body);
        onMessage(JSON.parse(json) as ParentMessage, payload);
      });
      if (outcome !== 'ok') onParentGone();
    });
    process.stdin.on('end', onParentGone);
    process.stdin.on('error', onParentGone);
  }

  send(message: ChildMessage, payload?: Uint8Array | string): void {
    const frame = encodeFrame(message, payload);
    this.pending.push(frame);
    this.pendingBytes += frame.length;
    if (this.pendingBytes >= WRITE_AT_BYTES) {
      this.flush();
    } else if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.flushScheduled = false;
    if (this.pending.length === 0) return;
    const data = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    let offset = 0;
    while (offset < data.length) {
      try {
        offset += writeSync(TO_PARENT_FD, data, offset);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'EAGAIN') this.onParentGone();
        Atomics.wait(sleepCell, 0, 0, 1);
      }
    }
  }

  /** Stops reading, so a child that has ended its script can exit. */
  close(): void {
    process.stdin.pause();
    process.stdin.removeAllListeners('data');
  }
}
