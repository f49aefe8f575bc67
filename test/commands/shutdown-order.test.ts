import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { describe, expect, test } from 'vitest';
import { closeLeavingNoProcess, SHUTDOWN_KILL_AFTER_MS } from '../../src/support/process-tree.js';
import { closeInOrder } from '../../src/commands/serve-shutdown.js';
import { UpstreamHub } from '../../src/upstream/hub.js';
import type { UpstreamStatus } from '../../src/upstream/connection/upstream.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { collectLog, fixture, hubPerTest, readRecord, textOf, until } from '../upstream/specs.js';

const scratch = hubPerTest();

/** A hub over one recorder upstream that writes each start to `record`, started; closed after the test. */
async function startRecordedHub() {
  scratch.dir = makeTempDir('shutdown-order');
  const record = join(scratch.dir, 'record.jsonl');
  const { lines, log } = collectLog();
  const hub = (scratch.hub = new UpstreamHub([fixture('rec', 'recorder.mjs', { env: { RECORD_FILE: record } })], { log }));
  await hub.start();
  return { hub, record, lines, log };
}

describe("a server's shutdown and its upstreams", () => {
  // Regression: the shutdown's 1 s SIGTERM ended an upstream while scripts were still stopping, and
  // it was restarted, only to be killed at 2.5 s: a fresh process group spawned for nothing.
  test("an upstream the shutdown's own SIGTERM ends while the scripts stop is not restarted: one start, and a line saying so", async () => {
    const { hub, record, lines, log } = await startRecordedHub();
    let whileStopping: UpstreamStatus[] = [];
    // Scripts that take past SHUTDOWN_TERM_AFTER_MS to stop: stopping lasts until the upstream is gone.
    await closeLeavingNoProcess(
      () =>
        closeInOrder(hub, async () => {
          await until(() => hub.upstreamStatus()[0]!.state !== 'ready');
          whileStopping = hub.upstreamStatus();
        }),
      log,
      hub.processGroups,
    );
    expect(lines).toContainEqual(expect.stringMatching(/^codemode-mcp: SIGTERM to upstream "rec" \(process group \d+\)/));
    expect(whileStopping).toEqual([{ name: 'rec', state: 'down', reason: 'it exited', toolCount: 10 }]);
    expect(lines).toContain('codemode-mcp: upstream "rec" was lost during shutdown (it exited); not restarted');
    expect(lines.filter((line) => line.includes('restarting'))).toEqual([]);
    expect(readRecord(record).filter((entry) => entry.event === 'start')).toHaveLength(1);
  });

  // Regression: the sweep signalled every stdio upstream of the process, so when one in-process
  // server's shutdown took past SHUTDOWN_TERM_AFTER_MS, another still serving lost its upstreams.
  test("a shutdown's sweep signals only its own hub's upstreams: another hub in the same process keeps serving", async () => {
    const { hub: serving, record } = await startRecordedHub();
    const { lines, log } = collectLog();
    const closing = new UpstreamHub([fixture('stubborn', 'stubborn.mjs')], { log });
    await closing.start();
    // It ignores the end of its stdin and SIGTERM: its close lasts past the sweep's SIGTERM, which therefore comes.
    await closeLeavingNoProcess(() => closing.close(), log, closing.processGroups);
    const signalled = lines.filter((line) => line.includes(' to upstream '));
    expect(signalled).toContainEqual(
      expect.stringMatching(/^codemode-mcp: SIGTERM to upstream "stubborn" \(process group \d+\)/),
    );
    expect(signalled.filter((line) => line.includes('"rec"'))).toEqual([]);
    expect(textOf(await serving.callTool('echo', { text: 'still here' }))).toBe('still here');
    expect(serving.upstreamStatus()).toEqual([{ name: 'rec', state: 'ready', toolCount: 10 }]);
    expect(readRecord(record).filter((entry) => entry.event === 'start')).toHaveLength(1);
  });

  test('an upstream that dies once the shutdown began is not restarted, however it dies', async () => {
    const { hub, record, lines } = await startRecordedHub();
    hub.stopRestarting();
    // It exits by itself mid-call, as an upstream told to stop by something else would.
    await expect(hub.callTool('die', {})).rejects.toMatchObject({ code: 'UPSTREAM_LOST' });
    await until(() => hub.upstreamStatus()[0]!.state !== 'ready');
    expect(hub.upstreamStatus()[0]).toMatchObject({ state: 'down', reason: 'it exited' });
    await expect(hub.callTool('echo', { text: 'x' })).rejects.toThrow(/upstream "rec" is down: it exited\. Nothing was sent/);
    expect(lines.filter((line) => line.includes('restarting'))).toEqual([]);
    await hub.close();
    expect(readRecord(record).filter((entry) => entry.event === 'start')).toHaveLength(1);
  });

  test('a restart already scheduled when the shutdown begins is dropped', async () => {
    const { lines, log } = collectLog();
    const hub = (scratch.hub = new UpstreamHub([fixture('gh', 'exits-at-once.mjs')], { log }));
    await hub.start();
    expect(lines).toContainEqual(
      expect.stringMatching(/^codemode-mcp: upstream "gh" failed to start: .*; next attempt in 0\.25 s$/),
    );
    hub.stopRestarting();
    // The refusal says when the next attempt comes while one is scheduled; none is now.
    await expect(hub.callTool('gh__anything', {})).rejects.toThrow(
      /upstream "gh" is down: it exited during startup; its stderr last said: "fatal: GITHUB_TOKEN is not set"\. Nothing was sent/,
    );
  });
});

describe('a shutdown in a process of its own', () => {
  /** A module of the built server, for a program run by `node -e`. */
  const module = (path: string) => JSON.stringify(pathToFileURL(join(process.cwd(), 'dist', path)).href);

  // Seen once under load (SIGHUP twice to a stdio server exited 0, not 129): a close whose last
  // waits were unref'd timers let Node end the process by itself, with code 0, before `exit`.
  test('exits with its own code even when its close waits on nothing that holds the process up', async () => {
    const program = [
      `const { createShutdown } = await import(${module('src/commands/serve-shutdown.js')});`,
      `const { LiveGroups } = await import(${module('src/support/process-group.js')});`,
      // Past the sweep's last held wait (SHUTDOWN_KILL_AFTER_MS), on an unref'd timer alone.
      `const close = () => new Promise((resolve) => setTimeout(resolve, ${SHUTDOWN_KILL_AFTER_MS + 500}).unref());`,
      'const shutDown = createShutdown(close, new LiveGroups(), () => {}, (code) => process.exit(code));',
      'void shutDown("the test", 129);',
    ].join('\n');
    const ended = await execa(process.execPath, ['--input-type=module', '-e', program], { reject: false });
    expect(ended.exitCode).toBe(129);
  });

  test("a one-shot command's close (run, tools, check) is waited for, however it waits, and its exit code set", async () => {
    const program = [
      `const { closeLeavingNoProcess } = await import(${module('src/support/process-tree.js')});`,
      `const { LiveGroups } = await import(${module('src/support/process-group.js')});`,
      `const close = () => new Promise((resolve) => setTimeout(resolve, ${SHUTDOWN_KILL_AFTER_MS + 500}).unref());`,
      'await closeLeavingNoProcess(close, () => {}, new LiveGroups());',
      'process.exitCode = 3;',
    ].join('\n');
    const ended = await execa(process.execPath, ['--input-type=module', '-e', program], { reject: false });
    expect(ended.exitCode).toBe(3);
  });
});
