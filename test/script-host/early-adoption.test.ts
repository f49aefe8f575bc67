/**
 * Processes spawned before the server has loaded (src/commands/serve-stdio/early-start.ts) and adopted later:
 * one that died in between is seen to have died, with what it said, not waited on forever.
 */
import type { ChildProcess } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { ScriptChild } from '../../src/script-host/script-child.js';
import { claimEarlyScriptProcess, offerEarlyScriptProcess, spawnScriptProcess } from '../../src/script-host/script-process.js';
import { LiveGroups } from '../../src/support/process-group.js';
import { StderrLines } from '../../src/support/stderr-lines.js';
import { StdioUpstreamTransport } from '../../src/upstream/transport/stdio-transport.js';
import { claimEarlyUpstream, offerEarlyUpstream, spawnUpstreamProcess } from '../../src/upstream/transport/upstream-process.js';
import { fixturePath } from '../support/mcp-client.js';

/** Writes a line to stderr and exits 3 at once, the way a server missing its API key does. */
const EXITS_AT_ONCE = fixturePath('upstreams/exits-at-once.mjs');

async function exited(child: ChildProcess): Promise<void> {
  while (child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('adopting a process spawned early', () => {
  test.each([
    ['says why on stderr', EXITS_AT_ONCE, 'fatal: GITHUB_TOKEN is not set'],
    ['says nothing (its pipes closed before anyone read them)', fixturePath('exits-silently.mjs'), undefined],
  ])('a script child that exited before the pool adopted it and %s: its ready fails and it is gone', async (_, entry, said) => {
    const options = { memoryMaxBytes: 64 * 1024 * 1024, notifyMax: 10, showMaxBytes: 1024, warm: true, entry };
    const spawned = spawnScriptProcess(options);
    offerEarlyScriptProcess(options, spawned);
    // Nobody listens until it has exited.
    await exited(spawned.process);
    expect(claimEarlyScriptProcess(options)).toBe(spawned);
    const lines: string[] = [];
    const child = new ScriptChild({ ...options, log: (line) => lines.push(line) }, spawned);
    await expect(child.ready).rejects.toThrow(/exited before it was ready/);
    await child.gone;
    expect(child.exited).toBe(true);
    if (said !== undefined) expect(lines.join('\n')).toContain(said);
  });

  test('an upstream that exited before its transport adopted it: the transport closes, and its stderr line is read', async () => {
    const command = { command: process.execPath, args: [EXITS_AT_ONCE], env: {} };
    const early = spawnUpstreamProcess('broken', command, new LiveGroups());
    offerEarlyUpstream('broken', command, early);
    await exited(early.child);
    const lines: string[] = [];
    const adopting = new LiveGroups();
    const transport = new StdioUpstreamTransport({
      name: 'broken',
      ...command,
      stderr: new StderrLines('[broken] ', (line) => lines.push(line), 1024),
      maxMessageBytes: 1024 * 1024,
      processGroups: adopting,
    });
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    await transport.start();
    expect(transport.pid).toBe(early.child.pid);
    // Kept where the adopting hub's shutdown sweeps, as one it spawned would be.
    expect(adopting.list()).toEqual([{ pgid: early.child.pid, name: 'broken' }]);
    await closed;
    expect(lines).toEqual(['[broken] fatal: GITHUB_TOKEN is not set']);
  });

  test('an early upstream is adopted only by the same command; another command spawns its own, and the early one is ended', async () => {
    const command = { command: process.execPath, args: ['-e', 'setTimeout(() => {}, 60_000)'], env: {} };
    const groups = new LiveGroups();
    const early = spawnUpstreamProcess('u', command, groups);
    offerEarlyUpstream('u', command, early);
    expect(claimEarlyUpstream('u', { ...command, args: ['-e', 'other'] }, groups)).toBeUndefined();
    await new Promise((resolve) => early.child.once('exit', resolve));
    expect(claimEarlyUpstream('u', command, groups)).toBeUndefined();
  });
});
