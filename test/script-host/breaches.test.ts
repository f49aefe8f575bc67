import { afterEach, describe, expect, it } from 'vitest';
import { BREACH, type Breach } from '../../protocol/contract.js';
import type { ToolCaller } from '../../src/script-host/apis.js';
import { CHILD_STDERR_LOGGED_MAX_CHARS } from '../../src/script-host/script-child.js';
import { waitForNoChildren } from '../support/processes.js';
import { runScript, toolEntries } from '../support/scripts.js';

afterEach(async () => {
  expect(await waitForNoChildren(process.pid)).toEqual([]);
});

const badChild = new URL('../fixtures/bad-child.mjs', import.meta.url).pathname;
const hangingTool: ToolCaller = (_name, _args, signal) =>
  new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));

/**
 * What a real child's breach shows that the in-memory ones (frame-policing.test.ts) can't: bytes
 * through a pipe that don't decode, a header past the cap with its body never sent, a real exit.
 */
const MODES: Array<[mode: string, breach: Breach]> = [
  ['undecodable', 'FRAME_UNDECODABLE'],
  ['frame-too-large', 'FRAME_TOO_LARGE'],
  ['exit-before-end', 'EXIT_BEFORE_END'],
];

describe('a child that breaks the protocol', () => {
  it.each(MODES)('ends as crashed when it sends %s', async (mode, breach) => {
    const ret = await runScript(mode, { entry: badChild, tools: toolEntries('hang'), callTool: hangingTool });
    expect(ret.status).toBe('crashed');
    expect(ret.isError).toBe(true);
    expect(ret.error).toContain(BREACH[breach]);
  });

  it('leaves the parent serving: the next script runs normally', async () => {
    await runScript('undecodable', { entry: badChild });
    const ret = await runScript('return "after"');
    expect(ret.status).toBe('finished');
    expect(ret.value).toBe('"after"');
  });

  it("logs at most 64 KiB of a child's stderr, says how much more it dropped, and keeps its last words", async () => {
    const logged: string[] = [];
    const ret = await runScript('stderr-flood', { entry: badChild, log: (line) => logged.push(line) });
    expect(ret.status).toBe('finished');
    expect(await waitForNoChildren(process.pid)).toEqual([]);
    const total = logged.reduce((sum, line) => sum + line.length, 0);
    expect(total).toBeLessThan(CHILD_STDERR_LOGGED_MAX_CHARS + 4_096);
    expect(logged.at(-1)).toMatch(/^\[script child \d+\] \(\d+ more lines of stderr not logged: past 65536 characters\)$/);
  });
});
