/**
 * A remote upstream's connection can stay open while the server behind it has stopped answering:
 * its transport reports closed only when the network says so, and until then every call waited
 * out its own timeout. So a remote upstream idle for `upstreamPingIntervalMs` is pinged, and
 * pinged before its next call after such an idle spell; no answer within `upstreamPingTimeoutMs`
 * and it is dead: the session reports it lost, with the reason, and is reconnected with backoff.
 */
import { ProtocolError, SdkError, SdkErrorCode, type Transport } from '@modelcontextprotocol/client';
import { formatDelay } from './backoff.js';
import { messageWithCauses } from './error-text.js';
import { logFailure } from '../../support/log.js';

export interface LivenessOptions {
  /** Idle this long (nothing heard from the upstream), it is pinged; 0 turns pings off. */
  readonly intervalMs: number;
  readonly timeoutMs: number;
  /** Sends a ping that rejects after `timeoutMs`. */
  readonly ping: (timeoutMs: number) => Promise<unknown>;
  /** Called once, with why, when a ping gets no answer. */
  readonly onDead: (reason: string) => void;
  readonly now?: () => number;
}

export class Liveness {
  private lastHeardAt: number;
  private timer: NodeJS.Timeout | undefined;
  private pinging: Promise<void> | undefined;
  private deadReason: string | undefined;
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly options: LivenessOptions) {
    this.now = options.now ?? Date.now;
    this.lastHeardAt = this.now();
    this.schedule();
  }

  /** Something came from the upstream: it is alive now. */
  heard(): void {
    this.lastHeardAt = this.now();
  }

  /**
   * Before a call: after an idle spell, a ping to wait for, which rejects with the reason when the
   * upstream is dead (as does every later call); undefined when it was heard from lately, so a
   * call to a live upstream is sent in the same tick.
   */
  beforeUse(): Promise<void> | undefined {
    if (this.deadReason !== undefined) return Promise.reject(new Error(this.deadReason));
    if (this.options.intervalMs === 0 || this.now() - this.lastHeardAt < this.options.intervalMs) return undefined;
    return this.check();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped || this.options.intervalMs === 0) return;
    const wait = Math.max(0, this.lastHeardAt + this.options.intervalMs - this.now());
    this.timer = setTimeout(() => {
      if (this.now() - this.lastHeardAt >= this.options.intervalMs)
        // A dead upstream is reported through onDead; the ping's own failure is only logged.
        void this.check().catch(logFailure("an idle upstream's ping"));
      else this.schedule();
    }, wait).unref();
  }

  /** One ping at a time; a dead upstream is reported once. */
  private check(): Promise<void> {
    this.pinging ??= this.pingOnce().finally(() => {
      this.pinging = undefined;
      this.schedule();
    });
    return this.pinging;
  }

  private async pingOnce(): Promise<void> {
    try {
      await this.options.ping(this.options.timeoutMs);
      this.heard();
    } catch (error) {
      const reason = deadReason(error, this.options.timeoutMs);
      // It answered, if only with an error: alive.
      if (reason === undefined) this.heard();
      else if (this.deadReason === undefined && !this.stopped) {
        this.deadReason = reason;
        this.stop();
        this.options.onDead(reason);
      }
    }
    if (this.deadReason !== undefined) throw new Error(this.deadReason);
  }
}

/** Watches a remote upstream's transport, every message heard counting as alive; none when pings are off (`intervalMs` 0). */
export function watchLiveness(transport: Transport, options: LivenessOptions): Liveness | undefined {
  if (options.intervalMs === 0) return undefined;
  const liveness = new Liveness(options);
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    liveness.heard();
    deliver?.(message, extra);
  };
  return liveness;
}

/** Why a failed ping means the upstream is gone; undefined when it answered, if only with an error. */
function deadReason(error: unknown, timeoutMs: number): string | undefined {
  if (error instanceof ProtocolError) return undefined;
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    return `it did not answer a ping within ${formatDelay(timeoutMs)} (upstreamPingTimeoutMs)`;
  }
  return `a ping failed: ${messageWithCauses(error)}`;
}
