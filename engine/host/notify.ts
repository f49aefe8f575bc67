import { NOTIFY_SKIPPED } from '../../common/seam.js';
import { NOTIFY_SPACING_MS } from '../../protocol/contract.js';
import type { HostOutlet } from './outlet.js';

/**
 * `notify`: at most `notifyMax` per script (none when it is 0), at least NOTIFY_SPACING_MS apart;
 * one sooner is skipped, not queued, so that only the latest progress is ever sent.
 */
export class Notifier {
  private sent = 0;
  private lastSentAt = -Infinity;

  constructor(
    private readonly notifyMax: number,
    private readonly outlet: HostOutlet,
    private readonly now: () => number,
  ) {}

  /** '' when sent, NOTIFY_SKIPPED when too soon, else what the script is told. */
  notify(payloadJson: string): string {
    if (this.notifyMax === 0) return 'notify is off on this server (its notifyMax setting is 0)';
    if (this.sent >= this.notifyMax) return `notify: this script has used all ${this.notifyMax} of its notifies`;
    const now = this.now();
    if (now - this.lastSentAt < NOTIFY_SPACING_MS) return NOTIFY_SKIPPED;
    this.sent++;
    this.lastSentAt = now;
    // Once the script has ended (its ending sent), nothing more goes to the parent, as with calls.
    if (!this.outlet.ended()) this.outlet.send({ t: 'notify', payload: payloadJson });
    return '';
  }
}
