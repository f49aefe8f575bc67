import { describe, expect, it } from 'vitest';
import { Notifier } from '../../../engine/host/notify.js';
import { NOTIFY_SKIPPED } from '../../../common/seam.js';
import { NOTIFY_SPACING_MS, type ChildMessage } from '../../../protocol/contract.js';
import { recordingOutlet } from './recording-outlet.js';

function notifierAt(notifyMax: number): { notifier: Notifier; sent: ChildMessage[]; clock: { now: number } } {
  const clock = { now: 0 };
  const { outlet, sent } = recordingOutlet();
  return { notifier: new Notifier(notifyMax, outlet, () => clock.now), sent, clock };
}

describe('notify', () => {
  it('sends the first at once and skips one sooner than NOTIFY_SPACING_MS after it', () => {
    const { notifier, sent, clock } = notifierAt(10);
    expect(notifier.notify('1')).toBe('');
    clock.now = NOTIFY_SPACING_MS - 1;
    expect(notifier.notify('2')).toBe(NOTIFY_SKIPPED);
    clock.now = NOTIFY_SPACING_MS;
    expect(notifier.notify('3')).toBe('');
    expect(sent).toEqual([
      { t: 'notify', payload: '1' },
      { t: 'notify', payload: '3' },
    ]);
  });

  it('counts only the sent ones against notifyMax, and says so past it', () => {
    const { notifier, sent, clock } = notifierAt(2);
    for (const payload of ['1', '2', '3', '4']) {
      notifier.notify(payload);
      clock.now += NOTIFY_SPACING_MS / 2;
    }
    expect(sent.map((message) => message.t === 'notify' && message.payload)).toEqual(['1', '3']);
    clock.now += NOTIFY_SPACING_MS;
    expect(notifier.notify('5')).toBe('notify: this script has used all 2 of its notifies');
  });

  it('is off when notifyMax is 0', () => {
    const { notifier, sent } = notifierAt(0);
    expect(notifier.notify('1')).toBe('notify is off on this server (its notifyMax setting is 0)');
    expect(sent).toEqual([]);
  });

  it('sends nothing once the script has ended, as a call sends nothing then', () => {
    const { outlet, sent } = recordingOutlet(true);
    expect(new Notifier(10, outlet, () => 0).notify('1')).toBe('');
    expect(sent).toEqual([]);
  });
});
