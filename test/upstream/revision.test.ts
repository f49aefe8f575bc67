import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/config/settings.js';
import { UpstreamHub } from '../../src/upstream/hub.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { collectLog, fixture, hubPerTest, published, textOf, until } from './specs.js';

const scratch = hubPerTest();

/** The starts SPAWN_FILE recorded. */
function spawnsIn(file: string): number {
  return readFileSync(file, 'utf8').trim().split('\n').length;
}

describe('the revision an upstream is opened with', () => {
  test('a stdio upstream that speaks only 2026-07-28 is opened with it, its tools are called, and a roots change is not sent to it', async () => {
    const { lines, log } = collectLog();
    const debug: string[] = [];
    scratch.hub = new UpstreamHub([fixture('current', 'current-revision.mjs')], {
      log: (line, level) => (level === 'debug' ? debug.push(line) : log(line, level)),
    });
    await scratch.hub.start();
    expect(debug).toContain('codemode-mcp: upstream "current": speaks MCP 2026-07-28');
    expect(textOf(await scratch.hub.callTool('greet', { name: 'Ada' }))).toBe('hello Ada');
    // 2026-07-28 has no roots/list_changed: it is not sent, rather than failing and logged.
    await scratch.hub.notifyRootsListChanged();
    expect(lines.filter((line) => !line.includes('connected over stdio'))).toEqual([]);
  });

  test("a 2026-07-28 upstream's tool list change is heard on its subscriptions/listen stream, and the catalog re-listed", async () => {
    scratch.hub = new UpstreamHub([fixture('current', 'current-revision.mjs')], { log: collectLog().log });
    await scratch.hub.start();
    let changes = 0;
    scratch.hub.events.on('catalog-changed', () => changes++);
    expect(textOf(await scratch.hub.callTool('add-tool', { name: 'fresh' }))).toBe('added fresh');
    await until(() => changes > 0);
    expect(textOf(await scratch.hub.callTool('fresh', {}))).toBe('fresh');
  });

  test('a 2025 npm server (server-everything, SDK 1.x) is opened with the 2025 handshake after the probe', async () => {
    const debug: string[] = [];
    scratch.hub = new UpstreamHub([published('everything', 'server-everything')], {
      log: (line, level) => void (level === 'debug' && debug.push(line)),
    });
    await scratch.hub.start();
    expect(debug).toContain('codemode-mcp: upstream "everything": speaks MCP 2025-11-25');
    expect(textOf(await scratch.hub.callTool('echo', { message: 'hi' }))).toBe('Echo: hi');
  });

  test.each([
    { how: 'answers the probe as an unknown method', args: [], startTimeoutMs: DEFAULT_SETTINGS.upstreamStartTimeoutMs },
    { how: 'never answers the probe (opened once the probe times out)', args: ['--silent-on-probe'], startTimeoutMs: 1_000 },
  ])('a 2025 upstream that $how is opened with the 2025 handshake, started once', async ({ args, startTimeoutMs }) => {
    scratch.dir = makeTempDir('revision');
    const spawns = join(scratch.dir, 'spawns');
    scratch.hub = new UpstreamHub([fixture('old', 'legacy-only.mjs', { args, env: { SPAWN_FILE: spawns } })], {
      log: collectLog().log,
      settings: { ...DEFAULT_SETTINGS, upstreamStartTimeoutMs: startTimeoutMs },
    });
    await scratch.hub.start();
    expect(textOf(await scratch.hub.callTool('hello', {}))).toBe('hello from 2025');
    expect(spawnsIn(spawns)).toBe(1);
  });

  test('a 2025 upstream that exits when probed fails its first start, and its next start, unprobed, opens it: one spawn each', async () => {
    scratch.dir = makeTempDir('revision');
    const spawns = join(scratch.dir, 'spawns');
    const { lines, log } = collectLog();
    scratch.hub = new UpstreamHub(
      [fixture('old', 'legacy-only.mjs', { args: ['--exit-on-probe'], env: { SPAWN_FILE: spawns } })],
      {
        log,
      },
    );
    await scratch.hub.start();
    expect(lines).toContain('codemode-mcp: upstream "old" failed to start: it exited during startup; next attempt in 0.25 s');
    await until(() => scratch.hub!.upstreamStatus()[0]!.state === 'ready');
    expect(lines).toContain('codemode-mcp: upstream "old" is up again: 1 tools');
    expect(textOf(await scratch.hub.callTool('hello', {}))).toBe('hello from 2025');
    expect(spawnsIn(spawns)).toBe(2);
  });
});
