import type { ChildMessage } from '../../protocol/contract.js';

/** What the host functions send through: the script's channel, in order with its output. */
export interface HostOutlet {
  /** True once the script has ended: a host function that checks it sends nothing more. */
  readonly ended: () => boolean;
  /** Sends a message after the output the script printed before it. */
  readonly send: (message: ChildMessage) => void;
  /** Writes now what has been sent, rather than at the end of the turn. */
  readonly flush: () => void;
}
