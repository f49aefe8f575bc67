import { writeSync } from 'node:fs';
import type { ChildMessage, ParentMessage } from '../protocol/contract.js';
import { FrameDecoder, encodeFrame, splitFrameBody } from '../protocol/frames.js';

const TO_PARENT_FD = 3;
/** The parent is trusted; this only keeps a corrupt length from allocating without bound. */
const FROM_PARENT_MAX_BYTES = 0x7fff_ffff;
const sleepCell = new Int32Array(new SharedArrayBuffer(4));

/** Where a script run's messages go: the parent, or a warm-up run's stand-in. */
export interface MessageSink {
  send(message: ChildMessage): void;
}

/**
 * The child's end of the channel: frames from the parent on stdin, frames to the parent on fd 3
 * written with writeSync, because the engine sends while QuickJS is mid-call (output, calls).
 */
export class ParentChannel implements MessageSink {
  private readonly decoder = new FrameDecoder(FROM_PARENT_MAX_BYTES);

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

  send(message: ChildMessage): void {
    const frame = encodeFrame(message);
    let offset = 0;
    while (offset < frame.length) {
      try {
        offset += writeSync(TO_PARENT_FD, frame, offset);
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
