import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, test, vi } from 'vitest';
import { RESTART_DELAY_FIRST_MS } from '../../src/upstream/connection/backoff.js';
import { UpstreamHub } from '../../src/upstream/hub.js';
import { UpstreamSession } from '../../src/upstream/connection/session.js';
import { childPidsOf } from '../support/processes.js';
import { collectLog, fixture, textOf, until } from './specs.js';

describe('close', () => {
  test('ends an upstream that ignores both the end of its stdin and SIGTERM', async () => {
    const { lines, log } = collectLog();
    const hub = new UpstreamHub([fixture('stubborn', 'stubborn.mjs'), fixture('rec', 'recorder.mjs')], { log });
    await hub.start();
    expect(textOf(await hub.callTool('stubborn__ping', {}))).toBe('pong');
    expect(childPidsOf(process.pid)).toHaveLength(2);
    await hub.close();
    expect(lines).toContain('[stubborn] ignoring SIGTERM');
    expect(childPidsOf(process.pid)).toEqual([]);
  });

  test('fails a call in flight as closed, not as refused, and stops all restarts', async () => {
    const hub = new UpstreamHub([fixture('rec', 'recorder.mjs')], { log: () => {} });
    await hub.start();
    // Every attempt to start opens a session, at once when its timer fires.
    const opens = vi.spyOn(UpstreamSession, 'open');
    // Watched before the close: the call may fail while close() is still ending the process group.
    const failed = expect(hub.callTool('hang', {})).rejects.toMatchObject({
      code: 'UPSTREAM_LOST',
      message: 'UPSTREAM_LOST: upstream rec was closed while the call to hang was in flight; the call may have taken effect',
    });
    await hub.close();
    await failed;
    expect(hub.upstreamStatus()).toEqual([{ name: 'rec', state: 'closed', toolCount: 10 }]);
    await expect(hub.callTool('echo', { text: 'x' })).rejects.toMatchObject({ code: 'UPSTREAM_DOWN' });
    // A restart scheduled before the close would be due RESTART_DELAY_FIRST_MS after its loss; a
    // timer of that length started now fires after it (Node runs timers in the order they are due),
    // so this waits for an order, not a guess of how long anything takes.
    await delay(RESTART_DELAY_FIRST_MS);
    expect(opens).not.toHaveBeenCalled();
    opens.mockRestore();
    expect(childPidsOf(process.pid)).toEqual([]);
  });

  test('stops a restart that is already scheduled', async () => {
    const opens = vi.spyOn(UpstreamSession, 'open');
    let closed: Promise<void> | undefined;
    // Closed in the same turn as the loss is handled, so the restart is scheduled and not yet due
    // however slow the machine.
    const hub: UpstreamHub = new UpstreamHub([fixture('rec', 'recorder.mjs')], {
      log: (line) => {
        if (line.includes('restarting in')) closed = hub.close();
      },
    });
    await hub.start();
    opens.mockClear();
    await expect(hub.callTool('die', {})).rejects.toMatchObject({ code: 'UPSTREAM_LOST' });
    await until(() => closed !== undefined);
    await closed;
    await delay(RESTART_DELAY_FIRST_MS);
    expect(opens).not.toHaveBeenCalled();
    opens.mockRestore();
    expect(childPidsOf(process.pid)).toEqual([]);
  });

  test('during start stops the upstreams still connecting', async () => {
    const hub = new UpstreamHub([fixture('rec', 'recorder.mjs')], { log: () => {} });
    const starting = hub.start();
    await hub.close();
    await starting;
    expect(hub.upstreamStatus()[0]!.state).toBe('closed');
    expect(childPidsOf(process.pid)).toEqual([]);
  });
});
