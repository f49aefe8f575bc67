/**
 * A stop lands whatever the script is doing: a loop of long native calls (which QuickJS's
 * interrupt check hardly sees), a busy loop, a wait, a recursion; its calls in flight are named.
 * The test's timeout is the only hang guard; the latency itself is measured in bench/.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { STOP_GRACE_MS } from '../../../src/script-host/stop-sequence.js';
import type { ToolCaller } from '../../../src/script-host/apis.js';
import { waitForNoChildren } from '../../support/processes.js';
import { startScript } from '../../support/scripts.js';

afterEach(async () => {
  expect(await waitForNoChildren(process.pid)).toEqual([]);
});

/** Starts the script, waits for its call to reach the tool (which answers only when cancelled), stops it. */
async function stopAfterCall(code: string): Promise<{ ret: Awaited<ReturnType<ReturnType<typeof startScript>['observe']>> }> {
  let called: () => void = () => {};
  const ready = new Promise<void>((resolve) => (called = resolve));
  const hangingTool: ToolCaller = (_name, _args, signal) => {
    called();
    return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
  };
  const script = startScript(code, { callTool: hangingTool });
  await ready;
  script.stop('requested');
  await script.ended;
  return { ret: await script.observe(0) };
}

describe('a stop', () => {
  it.each([
    [
      'a loop of long native calls',
      'const a = Array.from({ length: 300000 }, (_, i) => "s" + i); tools.echo({ pending: 1 }); for (;;) a.join(",")',
    ],
    ['a busy loop', 'tools.echo({ pending: 1 }); for (;;) {}'],
    ['a script waiting on its call', 'await tools.echo({ pending: 1 })'],
    [
      'a deep recursion, caught and repeated',
      'tools.echo({ pending: 1 }); function f() { f() } for (;;) { try { f() } catch (e) {} }',
    ],
    [
      'a loop of sorts with a comparator',
      'const a = Array.from({ length: 100000 }, (_, i) => -i); tools.echo({ pending: 1 }); for (;;) a.slice().sort((x, y) => x - y)',
    ],
  ])('lands on %s, and the ending names the call in flight', async (_name, code) => {
    const { ret } = await stopAfterCall(code);
    expect(ret.status).toBe('stopped');
    expect(ret.calls.unseen).toEqual([{ tool: 'echo', args: '{"pending":1}', fate: 'cancelled, may have taken effect' }]);
  });

  it('kills a script that sees no interrupt check, and says what its ending can no longer know', async () => {
    const { ret } = await stopAfterCall(
      'const a = Array.from({ length: 300000 }, (_, i) => "s" + i); tools.echo({}); for (;;) a.join(",")',
    );
    expect(ret.status).toBe('stopped');
    expect(ret.calls.unseen).toHaveLength(1);
    expect(ret.error).toBe(
      `Stopped, as asked. It did not stop within ${STOP_GRACE_MS} ms and was killed: output from its last moments, and calls it made but never sent, may be missing.`,
    );
  });
});
