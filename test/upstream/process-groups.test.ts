import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/config/settings.js';
import { UpstreamHub } from '../../src/upstream/hub.js';
import { descendantsRunning, statFieldsOf } from '../support/processes.js';
import { hubPerTest, until } from './specs.js';

const scratch = hubPerTest();
const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** Our descendants running `script`, each with its start time (against pid reuse). */
function running(script: string): Array<{ pid: number; started: string }> {
  return descendantsRunning(process.pid, script).flatMap((pid) => {
    const started = statFieldsOf(pid)?.[19];
    return started === undefined ? [] : [{ pid, started }];
  });
}

function stillRunning(process_: { pid: number; started: string }): boolean {
  const fields = statFieldsOf(process_.pid);
  return fields !== undefined && fields[0] !== 'Z' && fields[19] === process_.started;
}

describe('process groups', () => {
  // Regression: a start that timed out closed npx's stand-in (the wrapper) and left the real
  // server, its grandchild, running, once per retry.
  test('an upstream whose start times out is ended with everything it started before the next attempt', async () => {
    scratch.hub = new UpstreamHub(
      [
        {
          name: 'late',
          transport: 'stdio',
          command: process.execPath,
          args: [`${fixtures}e2e/wrapper.mjs`, process.execPath, `${fixtures}e2e/slow-start.mjs`, '600000'],
          env: {},
          policy: {},
        },
      ],
      { log: () => {}, settings: { ...DEFAULT_SETTINGS, upstreamStartTimeoutMs: 1_000 } },
    );
    const started = scratch.hub.start();
    await until(() => running('slow-start.mjs').length === 1);
    const [first] = running('slow-start.mjs');
    const [firstWrapper] = running('wrapper.mjs');
    await started;
    expect(scratch.hub.upstreamStatus()[0]).toMatchObject({
      state: 'down',
      reason: 'it did not answer within 1 s (upstreamStartTimeoutMs)',
    });
    // The next attempt has started: by then the first one's whole tree is gone.
    await until(() => running('slow-start.mjs').some((candidate) => candidate.pid !== first!.pid));
    expect([stillRunning(first!), stillRunning(firstWrapper!)]).toEqual([false, false]);
  });
});
