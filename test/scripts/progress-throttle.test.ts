import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PROGRESS_INTERVAL_MS, ProgressThrottle } from '../../src/scripts/progress-throttle.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('progress for one watch', () => {
  it('sends the first message at once and joins what follows within the interval into one', () => {
    const sent: string[] = [];
    const throttle = new ProgressThrottle((message) => sent.push(message));
    throttle.push('one\n');
    throttle.push('two\n');
    throttle.push('notify: 3');
    expect(sent).toEqual(['one\n']);
    vi.advanceTimersByTime(PROGRESS_INTERVAL_MS);
    expect(sent).toEqual(['one\n', 'two\nnotify: 3']);
  });

  it('drops what is pending when the watch ends: the answer carries it', () => {
    const sent: string[] = [];
    const throttle = new ProgressThrottle((message) => sent.push(message));
    throttle.push('one\n');
    throttle.push('two\n');
    void throttle.stop();
    vi.advanceTimersByTime(PROGRESS_INTERVAL_MS * 2);
    expect(sent).toEqual(['one\n']);
  });

  // Regression: under load a watch's answer overtook the progress notifications sent just before it.
  it('ends once what it sent is written, so the answer comes after it', async () => {
    let written: () => void = () => {};
    const throttle = new ProgressThrottle(() => new Promise<void>((resolve) => (written = resolve)));
    throttle.push('notify: {"step":1}');
    let ended = false;
    const stopping = throttle.stop().then(() => (ended = true));
    await Promise.resolve();
    expect(ended).toBe(false);
    written();
    await stopping;
    expect(ended).toBe(true);
  });
});
