import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { ToolRefusedError, UpstreamLostError } from '../../src/support/errors.js';
import { Backoff, RESTART_DELAY_FIRST_MS, RESTART_DELAY_MAX_MS } from '../../src/upstream/connection/backoff.js';
import { UpstreamHub } from '../../src/upstream/hub.js';
import { UpstreamSession } from '../../src/upstream/connection/session.js';
import type { StdioUpstreamSpec } from '../../src/upstream/spec.js';
import { collectLog, fixture, hubPerTest, readRecord, textOf, until } from './specs.js';
import { makeTempDir } from '../support/temp-dirs.js';

const scratch = hubPerTest();

const missingCommand: StdioUpstreamSpec = {
  name: 'ghost',
  transport: 'stdio',
  command: 'codemode-no-such-command',
  args: [],
  env: {},
  policy: {},
};

describe('an upstream that dies', () => {
  test('fails the call in flight with a clear error, restarts, and serves the next call', async () => {
    scratch.dir = makeTempDir('restart');
    const record = join(scratch.dir, 'calls.jsonl');
    const { lines, log } = collectLog();
    scratch.hub = new UpstreamHub([fixture('rec', 'recorder.mjs', { env: { RECORD_FILE: record } })], { log });
    await scratch.hub.start();
    const changes: number[] = [];
    scratch.hub.events.on('catalog-changed', () => changes.push(Date.now()));

    const error = await scratch.hub.callTool('die', {}).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(UpstreamLostError);
    expect(error).not.toBeInstanceOf(ToolRefusedError);
    expect((error as Error).message).toBe(
      'UPSTREAM_LOST: upstream rec exited while the call to die was in flight; the call may have taken effect',
    );
    expect(lines).toContain(`codemode-mcp: upstream "rec" exited; restarting in 0.25 s`);

    // Until it is back, a call is refused, and says why.
    await expect(scratch.hub.callTool('echo', { text: 'too soon' })).rejects.toMatchObject({ code: 'UPSTREAM_CONNECTING' });

    await until(() => scratch.hub!.upstreamStatus()[0]!.state === 'ready');
    expect(textOf(await scratch.hub.callTool('echo', { text: 'back' }))).toBe('back');
    const starts = readRecord(record).filter((entry) => entry.event === 'start');
    expect(starts).toHaveLength(2);
    expect(starts[0]!.pid).not.toBe(starts[1]!.pid);
    expect(lines).toContain('codemode-mcp: upstream "rec" is up again: 10 tools');
    // The tools are the same after the restart, so the catalog did not change.
    expect(changes).toEqual([]);
  });

  test('restart delays double from 0.25 s up to 30 s and start over after a reset', () => {
    const backoff = new Backoff();
    const delays = Array.from({ length: 10 }, () => backoff.next());
    expect(delays).toEqual([250, 500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    expect(delays[0]).toBe(RESTART_DELAY_FIRST_MS);
    expect(Math.max(...delays)).toBe(RESTART_DELAY_MAX_MS);
    backoff.reset();
    expect(backoff.next()).toBe(RESTART_DELAY_FIRST_MS);
  });
});

describe('an upstream that fails to start', () => {
  test('a command that does not exist is reported, its calls are refused with the reason, and the others serve', async () => {
    const { lines, log } = collectLog();
    scratch.hub = new UpstreamHub([missingCommand, fixture('rec', 'recorder.mjs')], { log });
    await scratch.hub.start();
    expect(lines.filter((line) => line.includes('"ghost"'))).toEqual([
      'codemode-mcp: upstream "ghost" failed to start: spawn codemode-no-such-command ENOENT; next attempt in 0.25 s',
    ]);
    expect(scratch.hub.upstreamStatus()).toEqual([
      { name: 'ghost', state: 'down', reason: 'spawn codemode-no-such-command ENOENT' },
      { name: 'rec', state: 'ready', toolCount: 10 },
    ]);

    // It has never listed its tools, so any name under its prefix is refused as down, not unknown.
    const refusal = await scratch.hub.callTool('ghost__anything', {}).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ToolRefusedError);
    expect(refusal).toMatchObject({ code: 'UPSTREAM_DOWN' });
    expect((refusal as Error).message).toMatch(
      /^UPSTREAM_DOWN: ghost__anything was refused: upstream "ghost" is down: spawn codemode-no-such-command ENOENT(; next attempt in [\d.]+ s)?\. Nothing was sent; it is safe to retry later\.$/,
    );
    expect(textOf(await scratch.hub.callTool('rec__echo', { text: 'still here' }))).toBe('still here');
  });

  test('a server that exits at once is reported with what it said on stderr', async () => {
    const { lines, log } = collectLog();
    scratch.hub = new UpstreamHub([fixture('gh', 'exits-at-once.mjs'), fixture('rec', 'recorder.mjs')], { log });
    await scratch.hub.start();
    expect(lines).toContain('[gh] fatal: GITHUB_TOKEN is not set');
    const reason = 'it exited during startup; its stderr last said: "fatal: GITHUB_TOKEN is not set"';
    expect(lines).toContain(`codemode-mcp: upstream "gh" failed to start: ${reason}; next attempt in 0.25 s`);
    expect(scratch.hub.upstreamStatus()[0]).toEqual({ name: 'gh', state: 'down', reason });
    await expect(scratch.hub.callTool('gh__list_issues', {})).rejects.toMatchObject({ code: 'UPSTREAM_DOWN' });
    expect(textOf(await scratch.hub.callTool('rec__echo', { text: 'ok' }))).toBe('ok');
  });

  test('it is retried in the background without a log line per identical failure', async () => {
    const { lines, log } = collectLog();
    // Every attempt opens a session: the fourth open means three attempts have failed and been handled.
    const opens = vi.spyOn(UpstreamSession, 'open');
    scratch.hub = new UpstreamHub([missingCommand], { log });
    await scratch.hub.start();
    await until(() => opens.mock.calls.length >= 4);
    opens.mockRestore();
    expect(lines.filter((line) => line.includes('failed to start'))).toHaveLength(1);
    expect(scratch.hub.upstreamStatus()[0]!.state).toBe('down');
  });

  test('a call while it is still starting is refused as connecting', async () => {
    scratch.hub = new UpstreamHub([fixture('rec', 'recorder.mjs')], { log: () => {} });
    const starting = scratch.hub.start();
    const refusal = await scratch.hub.callTool('echo', { text: 'early' }).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'UPSTREAM_CONNECTING' });
    expect((refusal as Error).message).toContain('upstream "rec" is still starting');
    await starting;
    expect(textOf(await scratch.hub.callTool('echo', { text: 'now' }))).toBe('now');
  });
});
