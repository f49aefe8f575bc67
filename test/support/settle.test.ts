import { describe, expect, it } from 'vitest';
import { pause, settleWithin } from '../../src/support/settle.js';

describe('settleWithin', () => {
  it('is settled when the promise resolves or rejects first', async () => {
    expect(await settleWithin(Promise.resolve(1), { ms: 60_000 })).toBe('settled');
    expect(await settleWithin(Promise.reject(new Error('no')), { ms: 60_000 })).toBe('settled');
  });

  it('times out on a promise that never settles, and a bound of 0 or less is at once', async () => {
    expect(await settleWithin(new Promise(() => {}), { ms: 0 })).toBe('timeout');
    expect(await settleWithin(new Promise(() => {}), { ms: -5 })).toBe('timeout');
  });

  it('is aborted by the signal, already aborted or aborted while waiting', async () => {
    expect(await settleWithin(new Promise(() => {}), { signal: AbortSignal.abort() })).toBe('aborted');
    const controller = new AbortController();
    const waiting = settleWithin(new Promise(() => {}), { signal: controller.signal });
    controller.abort();
    expect(await waiting).toBe('aborted');
  });

  it('leaves no listener on the signal once over', async () => {
    const controller = new AbortController();
    let added = 0;
    let removed = 0;
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = (...args: Parameters<typeof add>) => (added++, add(...args));
    signal.removeEventListener = (...args: Parameters<typeof remove>) => (removed++, remove(...args));
    await settleWithin(Promise.resolve(), { signal });
    expect([added, removed]).toEqual([1, 1]);
  });

  it('leaves no timer once the promise settled first', async () => {
    const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    expect(await settleWithin(Promise.resolve(), { ms: 60_000, ref: true })).toBe('settled');
    expect(timers()).toBe(before);
  });

  it('pause ends early when its signal aborts', async () => {
    const controller = new AbortController();
    const paused = pause(60_000, controller.signal);
    controller.abort();
    await expect(paused).resolves.toBeUndefined();
  });
});
