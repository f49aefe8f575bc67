import type { ChildMessage, ParentMessage } from '../../protocol/contract.js';
import type { ChannelEvents, ScriptChannel } from './channel.js';

/** The child a lease is on: a ScriptChild (script-child.ts), a channel that serves several scripts. */
export type LeasedChild = ScriptChannel;

/**
 * One script's hold on a child that may serve several, one after another: the channel its Script
 * is given. Once the child has said how that script ended, the lease is over: what the Script
 * still does through it (an answer that came late, a stop) reaches nothing, and nothing the child
 * says afterwards reaches the Script, so the child's next script can never see the last one's.
 */
export class ChildLease implements ScriptChannel {
  private open = true;
  /** `ready`, as it was when the lease began: the ready of this script's VM. */
  readonly ready: Promise<void>;

  constructor(private readonly child: LeasedChild) {
    this.ready = child.ready;
  }

  /** The child has said how this lease's script ended. */
  end(): void {
    this.open = false;
  }

  listen(events: ChannelEvents): void {
    this.child.listen({
      message: (message: ChildMessage) => {
        if (this.open) events.message(message);
      },
      breach: (reason) => {
        if (this.open) events.breach(reason);
      },
      exit: () => {
        if (this.open) events.exit();
      },
    });
  }

  start(code: string, toolsJson: string, unlisted: readonly string[]): void {
    if (this.open) this.child.start(code, toolsJson, unlisted);
  }

  send(message: ParentMessage, payload?: Uint8Array | string, written?: () => void): void {
    if (this.open) this.child.send(message, payload, written);
  }

  createStopFile(): void {
    if (this.open) this.child.createStopFile();
  }

  kill(): void {
    if (this.open) this.child.kill();
  }

  describeExit(): string {
    return this.child.describeExit();
  }
}
