import type { HostOutlet } from '../../../engine/host/outlet.js';
import type { ChildMessage } from '../../../protocol/contract.js';

/** An outlet that records what a host function sends, and how often it asked for a flush. */
export function recordingOutlet(ended = false): { outlet: HostOutlet; sent: ChildMessage[]; flushes: () => number } {
  const sent: ChildMessage[] = [];
  let flushes = 0;
  const outlet: HostOutlet = {
    ended: () => ended,
    send: (message) => sent.push(message),
    flush: () => {
      flushes++;
    },
  };
  return { outlet, sent, flushes: () => flushes };
}
