import { describe, expect, test } from 'vitest';
import { descendantsRunning, statFieldsOf } from '../support/processes.js';
import { fixturePath, nodeEntry, valueOf, writeConfig } from '../support/mcp-client.js';
import { startInProcess } from '../support/in-process-server.js';
import { until } from '../upstream/specs.js';

/** Whether `pid` is still a live process (a zombie has ended). */
function isAlive(pid: number): boolean {
  const fields = statFieldsOf(pid);
  return fields !== undefined && fields[0] !== 'Z';
}

describe('an upstream behind a wrapper that starts the real server as its child, as npx does', () => {
  // Regression: the SDK's stdio transport signalled only its direct child, so the real server,
  // a grandchild that ignores its stdin's end and SIGTERM, outlived every restart.
  test('when the wrapper dies, the grandchild goes with it, the upstream restarts, and after shutdown nothing of either tree is left', async () => {
    const config = writeConfig({
      stubborn: nodeEntry(fixturePath('e2e/wrapper.mjs'), [process.execPath, fixturePath('upstreams/stubborn.mjs')]),
    });
    const server = await startInProcess(['--config', config]);
    // The server serves in this process: what it starts are this process's descendants.
    const serverPid = process.pid;
    expect(valueOf(await server.run({ code: 'return (await tools["ping"]({})).content[0].text' }))).toBe('pong');
    const [wrapper] = descendantsRunning(serverPid, 'wrapper.mjs');
    const [grandchild] = descendantsRunning(serverPid, 'stubborn.mjs');
    expect([wrapper, grandchild].every((pid) => pid !== undefined)).toBe(true);

    process.kill(wrapper!, 'SIGKILL');
    await until(() => server.stderr().includes('upstream "stubborn" is up again'));
    expect(isAlive(grandchild!)).toBe(false);
    expect(server.stderr()).toContain('upstream "stubborn" exited; restarting in 0.25 s');
    expect(descendantsRunning(serverPid, 'stubborn.mjs')).not.toContain(grandchild);
    expect(valueOf(await server.run({ code: 'return (await tools["ping"]({})).content[0].text' }))).toBe('pong');

    expect(await server.close()).toEqual([]);
    expect(await server.exited).toEqual({ code: 0 });
  });
});
