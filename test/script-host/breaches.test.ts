import { afterEach, describe, expect, it } from 'vitest';
import { BREACH, type Breach } from '../../protocol/contract.js';
import type { ToolCaller } from '../../src/script-host/types.js';
import { CHILD_STDERR_LOGGED_MAX_CHARS } from '../../src/script-host/script-child.js';
import { waitForNoChildren } from '../support/processes.js';
import { runScript, toolEntries } from '../support/scripts.js';

afterEach(async () => {
  expect(await waitForNoChildren(process.pid)).toEqual([]);
});

const badChild = new URL('../fixtures/bad-child.mjs', import.meta.url).pathname;
const hangingTool: ToolCaller = (_name, _args, signal) =>
  new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));

/** Each mode of the bad child, and the breach DESIGN.md names for it. */
const MODES: Array<[mode: string, breach: Breach]> = [
  ['undecodable', 'FRAME_UNDECODABLE'],
  ['frame-too-large', 'FRAME_TOO_LARGE'],
  ['too-many-values', 'FRAME_TOO_MANY_VALUES'],
  ['tool-not-given', 'TOOL_NOT_GIVEN'],
  ['resource-call-unknown', 'RESOURCE_CALL_UNKNOWN'],
  ['resource-read-no-uri', 'RESOURCE_CALL_UNKNOWN'],
  ['resource-flag-not-true', 'FRAME_UNDECODABLE'],
  ['call-id-reused', 'CALL_ID_REUSED'],
  ['too-many-calls', 'TOO_MANY_CALLS'],
  ['args-too-large', 'ARGS_TOO_LARGE'],
  ['args-too-many-values', 'ARGS_TOO_MANY_VALUES'],
  ['args-not-object', 'ARGS_INVALID'],
  ['too-many-notifies', 'TOO_MANY_NOTIFIES'],
  ['notify-not-json', 'NOTIFY_INVALID'],
  ['value-not-json', 'VALUE_NOT_JSON'],
  ['value-as-field', 'FRAME_UNDECODABLE'],
  ['value-too-large', 'VALUE_TOO_LARGE'],
  ['payload-not-an-ending', 'FRAME_UNDECODABLE'],
  ['call-id-out-of-order', 'CALL_ID_REUSED'],
  ['read-more-than-sent', 'MESSAGE_UNEXPECTED'],
  ['output-past-batch', 'OUTPUT_PAST_BATCH'],
  ['exit-before-end', 'EXIT_BEFORE_END'],
  ['stopped-unasked', 'MESSAGE_UNEXPECTED'],
  ['ready-again', 'MESSAGE_UNEXPECTED'],
  ['show-not-a-block', 'SHOW_INVALID'],
  ['show-extra-field', 'SHOW_INVALID'],
  ['show-not-base64', 'SHOW_INVALID'],
  ['show-past-cap', 'SHOW_INVALID'],
  ['show-empty', 'SHOW_INVALID'],
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
