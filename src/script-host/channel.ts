import { CodemodeError } from '../support/errors.js';
import type { Breach, ChildMessage, ParentMessage } from '../../protocol/contract.js';

/** What a script hears from its child: checked messages, a breach, the exit. */
export interface ChannelEvents {
  /** A frame that passed its checks (check-message.ts, child-frames.ts), after the child's ready. */
  message(message: ChildMessage): void;
  /** A frame that broke the protocol: the channel has killed the child and reads nothing more from it. */
  breach(reason: Breach): void;
  /** The child has exited, after the last of its frames was heard. */
  exit(): void;
}

/**
 * The parent's line to one script's child: what a Script needs of it. The child process
 * (ScriptChild) is the one implementation the server uses; tests use one in memory.
 */
export interface ScriptChannel {
  /** Resolves when the child said it is ready; rejects, saying why, when it exits or breaks the protocol first. */
  readonly ready: Promise<void>;
  /** Takes over the child's events (once, when it is given a script); a breach or exit already past is heard at once. */
  listen(events: ChannelEvents): void;
  /** Gives the child its script, and the tools it may call (their JSON text) and the unlisted prefixes. */
  start(code: string, toolsJson: string, unlisted: readonly string[]): void;
  /** Sends a frame; `written` is called once it is in the child's input. */
  send(message: ParentMessage, payload?: Uint8Array | string, written?: () => void): void;
  /** Asks a computing child to stop at its next interrupt check (the stop frame asks one that is waiting). */
  createStopFile(): void;
  kill(): void;
  /** How the child exited, to explain an exit: the code or signal and its last words. */
  describeExit(): string;
}

/** Why a child never became ready: it exited, or broke the protocol, before its `ready`. */
export class ChildNotReadyError extends CodemodeError {
  override readonly name = 'ChildNotReadyError';

  constructor(text: string) {
    super('CHILD_NOT_READY', text);
  }
}
