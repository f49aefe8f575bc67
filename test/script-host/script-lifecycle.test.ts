/**
 * A script's life over an in-memory child (test/support/fake-channel.ts), on vitest's fake clock:
 * its lifetime, a stop and the kill after the grace, the ending, the notify budget, watching.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { STOP_GRACE_MS } from '../../src/script-host/stop-sequence.js';
import { fakeScript } from '../support/fake-channel.js';
import { countedHangingTool, toolEntries } from '../support/scripts.js';

describe("a script's stop, on a fake clock", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('stops at its lifetime with the stop file and a stop frame, and ends as an error naming the lifetime', async () => {
    const { script, child } = fakeScript({ limits: { scriptLifetimeMs: 300 } });
    vi.advanceTimersByTime(299);
    expect([child.stopFiles, child.sentOf('stop').length]).toEqual([0, 0]);
    vi.advanceTimersByTime(1);
    expect([child.stopFiles, child.sentOf('stop').length]).toEqual([1, 1]);
    child.receive({ t: 'end', status: 'stopped', read: 0 });
    await script.ended;
    vi.advanceTimersByTime(10 * STOP_GRACE_MS);
    expect(child.kills).toBe(0);
    expect(script.takeReturn()).toMatchObject({
      status: 'stopped',
      stopReason: 'lifetime',
      isError: true,
      error: "Stopped at its lifetime of 300 ms (the server's scriptLifetimeMs).",
    });
  });

  it('kills a stopped child that has not ended within the grace, and says what its ending may lack', async () => {
    const { script, child } = fakeScript();
    script.stop('requested');
    vi.advanceTimersByTime(STOP_GRACE_MS - 1);
    expect(child.kills).toBe(0);
    vi.advanceTimersByTime(1);
    expect(child.kills).toBe(1);
    await script.ended;
    expect(script.takeReturn()).toMatchObject({
      status: 'stopped',
      stopReason: 'requested',
      isError: false,
      error: `Stopped, as asked. It did not stop within ${STOP_GRACE_MS} ms and was killed: output from its last moments, and calls it made but never sent, may be missing.`,
    });
  });

  it('takes an exit within the grace as the stop landing, with nothing said of a kill', async () => {
    const { script, child } = fakeScript();
    script.stop('shutdown');
    child.exit();
    await script.ended;
    vi.advanceTimersByTime(10 * STOP_GRACE_MS);
    expect(child.kills).toBe(0);
    expect(script.takeReturn()).toMatchObject({ status: 'stopped', error: 'Stopped: the server is shutting down.' });
  });

  it('stops once: a second stop, and a stop after the ending, send nothing', async () => {
    const { script, child } = fakeScript();
    script.stop('watch-cancelled');
    script.stop('requested');
    expect(child.sentOf('stop')).toHaveLength(1);
    child.receive({ t: 'end', status: 'stopped' });
    await script.ended;
    script.stop('requested');
    expect([child.stopFiles, child.sentOf('stop').length]).toEqual([1, 1]);
    expect(script.takeReturn()).toMatchObject({
      stopReason: 'watch-cancelled',
      error: 'Stopped: the client cancelled the call that watched it before it had returned anything.',
    });
  });

  it('takes notifies that arrive together after a stall of the server, within the budget since the start', async () => {
    // Regression: the server checked the gap between arrivals, so a stall of its own made an
    // honest script "too many notifies".
    const sent: string[] = [];
    const { script, child } = fakeScript({ onNotify: (payload) => sent.push(payload) });
    vi.advanceTimersByTime(2_500);
    for (const payload of ['1', '2', '3', '4']) child.receive({ t: 'notify', payload });
    child.receive({ t: 'end', status: 'finished', read: 0 }, '"ok"');
    await script.ended;
    expect(script.takeReturn()).toMatchObject({ status: 'finished', notifications: ['1', '2', '3', '4'] });
    expect(sent).toEqual(['1', '2', '3', '4']);
  });

  it('refuses a notify past notifyMax however long the script has run', async () => {
    const { script, child } = fakeScript({ limits: { notifyMax: 1 } });
    vi.advanceTimersByTime(60_000);
    child.receive({ t: 'notify', payload: '1' });
    child.receive({ t: 'notify', payload: '2' });
    await script.ended;
    expect(script.takeReturn()).toMatchObject({ status: 'crashed', error: expect.stringContaining('too many notifies') });
  });
});

describe("a script's ending, over an in-memory child", () => {
  it('finishes with its value, its output and notifications, once each', async () => {
    const { script, child } = fakeScript();
    child.receive({ t: 'out', text: 'one\n' });
    child.receive({ t: 'notify', payload: '{"step":1}' });
    child.receive({ t: 'end', status: 'finished', read: 0 }, '{"a":1}');
    await script.ended;
    expect(script.takeReturn()).toMatchObject({
      status: 'finished',
      value: '{"a":1}',
      isError: false,
      output: { head: 'one\n', tail: '', dropped: 0 },
      notifications: ['{"step":1}'],
    });
    expect(script.takeReturn()).toMatchObject({ status: 'finished', output: { head: '' }, notifications: [] });
  });

  it("fails with the script's error, as an error", async () => {
    const { script, child } = fakeScript();
    child.receive({ t: 'end', status: 'failed', error: 'Error: boom' });
    await script.ended;
    expect(script.takeReturn()).toMatchObject({ status: 'failed', error: 'Error: boom', isError: true });
  });

  it('crashes, saying why, when the child says ready a second time', async () => {
    const { script, child } = fakeScript();
    child.receive({ t: 'ready', v: 1, prelude: 'snapshot' });
    await script.ended;
    expect(script.takeReturn()).toMatchObject({
      status: 'crashed',
      error: expect.stringContaining('a message the protocol does not allow'),
    });
  });

  it('sends the script, its tools and the unlisted prefixes at once', () => {
    const { child } = fakeScript({ code: 'return 1', tools: toolEntries('a'), unlisted: ['b__'] });
    expect(child.sentOf('start')).toEqual([
      { message: { t: 'start', code: 'return 1', tools: JSON.stringify(toolEntries('a')), unlisted: ['b__'] } },
    ]);
  });

  it('names the calls still out as cancelled when it ends, and cancels them upstream', async () => {
    const hanging = countedHangingTool(2);
    const { script, child } = fakeScript({ tools: toolEntries('slow'), callTool: hanging.callTool });
    child.receive({ t: 'call', id: 1, tool: 'slow', args: '{"n":1}' });
    child.receive({ t: 'call', id: 2, tool: 'slow', args: '{"n":2}' });
    await hanging.reached;
    child.receive({ t: 'end', status: 'failed', error: 'Error: gave up', read: 0, unsent: '{"slow":3}' });
    await script.ended;
    expect(script.takeReturn().calls).toEqual({
      answered: 0,
      refused: 0,
      inFlight: 0,
      unseen: [
        { tool: 'slow', args: '{"n":1}', fate: 'cancelled, may have taken effect' },
        { tool: 'slow', args: '{"n":2}', fate: 'cancelled, may have taken effect' },
      ],
      unseenMore: {},
      unsent: { slow: 3 },
    });
  });
});

describe('watching a script', () => {
  it('returns at once for a bound of 0, when the script ends, or when the signal aborts', async () => {
    const { script, child } = fakeScript();
    await script.watch(0);
    const controller = new AbortController();
    const aborted = script.watch(Infinity, controller.signal);
    controller.abort();
    await aborted;
    expect(script.status).toBe('running');
    const watching = script.observe(Infinity);
    child.receive({ t: 'end', status: 'finished', read: 0 }, '2');
    expect(await watching).toMatchObject({ status: 'finished', value: '2' });
  });

  it('returns once its bound has passed, the script still running', async () => {
    const { script, child } = fakeScript();
    expect(await script.observe(1)).toMatchObject({ status: 'running' });
    child.exit();
  });
});
