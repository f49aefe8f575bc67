import type { ScriptChannel } from './channel.js';
import type { StopReason } from './types.js';

/**
 * 400 ms: a stopped child that hasn't ended by then is killed, so a stop lands within half a
 * second whatever the script does (a loop of long native calls sees no interrupt check for
 * seconds). A computing script ends at its next interrupt check, an idle one at once; one that is
 * killed loses the output it printed since its last batch and the count of calls it never sent.
 */
export const STOP_GRACE_MS = 400;

/**
 * How a script is stopped: at its lifetime, or when asked; the stop file and a stop frame, then a
 * kill if the child has not ended within STOP_GRACE_MS. The lifetime starts when the script is sent.
 */
export class StopSequence {
  /** Why the script was stopped, once it was. */
  reason: StopReason | null = null;
  /** Set when the child was killed after a stop: its output may be cut short. */
  killedAfterStop = false;
  private readonly lifetimeTimer: NodeJS.Timeout;
  private killTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly channel: Pick<ScriptChannel, 'createStopFile' | 'send' | 'kill'>,
    lifetimeMs: number,
    onLifetime: () => void,
  ) {
    this.lifetimeTimer = setTimeout(onLifetime, lifetimeMs);
    this.lifetimeTimer.unref();
  }

  /** Stops the script, once: the stop file and a stop frame, then a kill after STOP_GRACE_MS. */
  stop(reason: StopReason): void {
    if (this.reason !== null) return;
    this.reason = reason;
    this.channel.createStopFile();
    this.channel.send({ t: 'stop' });
    this.killTimer = setTimeout(() => {
      this.killedAfterStop = true;
      this.channel.kill();
    }, STOP_GRACE_MS);
  }

  /** The child said how its script ended, or exited: the stop's grace, if any, is over. */
  childEnded(): void {
    clearTimeout(this.killTimer);
  }

  /** The script has ended: its lifetime no longer runs. */
  scriptEnded(): void {
    clearTimeout(this.lifetimeTimer);
  }
}
