/**
 * The pool over real script processes: what only a process shows (a fresh engine per script, a
 * killed child replaced, the reason a child could not start, the exits of children let go). The
 * pool's decisions are tested in-process over fake children: child-pool.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ScriptChild } from '../../src/script-host/script-child.js';
import { ChildSupply } from '../../src/scripts/child-supply.js';
import { RETIRED_HOLD_MAX_MS } from '../../src/scripts/retired-hold.js';
import { OwnerScripts } from '../../src/scripts/owner-scripts.js';
import { answerArguments } from '../../src/mcp/code-execution/call.js';
import { DEFAULT_SETTINGS, type Settings } from '../../src/config/settings.js';
import { childPidsOf, statFieldsOf, waitForNoChildren } from '../support/processes.js';
import { until } from '../support/waiting.js';
import { FakeClock } from './fake-clock.js';

const opened: Array<{ session: OwnerScripts; supply: ChildSupply }> = [];
const idle = { signal: new AbortController().signal };

function open(
  settings: Partial<Settings>,
  ready?: Promise<void>,
  log: (line: string, level?: string) => void = () => {},
  clock?: FakeClock,
): { session: OwnerScripts; supply: ChildSupply } {
  const all = { ...DEFAULT_SETTINGS, ...settings };
  const supply = new ChildSupply(all, log, ready, clock);
  const session = new OwnerScripts({
    supply: supply.forSession(),
    catalog: () => [],
    unlisted: () => [],
    apis: { tools: async () => ({ content: [] }) },
    settings: all,
    identity: { principal: 'local', session: 'the client' },
    log: () => {},
  });
  opened.push({ session, supply });
  return { session, supply };
}

afterEach(async () => {
  vi.restoreAllMocks();
  for (const { session, supply } of opened.splice(0)) {
    await session.close();
    await supply.close();
  }
  expect(await waitForNoChildren(process.pid)).toEqual([]);
});

/** Waits until this process has exactly `count` children, none of them `gone`, and returns their pids. */
async function childrenSettleAt(count: number, gone: readonly number[] = []): Promise<number[]> {
  const settled = (pids: number[]) => pids.length === count && !pids.some((pid) => gone.includes(pid));
  return until(
    `${count} script children`,
    () => {
      const pids = childPidsOf(process.pid);
      return settled(pids) && pids;
    },
    () => `children: ${childPidsOf(process.pid).join(', ')}`,
  );
}

const valueOf = async (session: OwnerScripts, code: string) =>
  ((await answerArguments(session, { code }, DEFAULT_SETTINGS.maxYieldMs, idle)).structuredContent as { value?: unknown }).value;

describe('the warm pool', () => {
  it('runs the next script of the same owner in the same child, in a fresh engine: nothing of the first is visible', async () => {
    const { session } = open({ pool: 1 });
    const [first] = await childrenSettleAt(1);
    expect(await valueOf(session, 'globalThis.leftover = "from the first script"; return typeof leftover')).toBe('string');
    // Reset and kept for this owner: the one child is still the same process.
    const [second] = await childrenSettleAt(1);
    expect(second).toBe(first);
    expect(await valueOf(session, 'return typeof leftover')).toBe('undefined');
  });

  it('retires a child after childMaxScripts scripts, and the next script gets a fresh one', async () => {
    const { session } = open({ pool: 1, childMaxScripts: 1 });
    const [first] = await childrenSettleAt(1);
    expect(await valueOf(session, 'globalThis.leftover = "from the first script"; return typeof leftover')).toBe('string');
    const [second] = await childrenSettleAt(1, [first!]);
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(childPidsOf(process.pid)).not.toContain(first);
    expect(await valueOf(session, 'return typeof leftover')).toBe('undefined');
  });

  it('replaces an idle pooled child that was killed, and the next run succeeds on a fresh child', async () => {
    const { session } = open({ pool: 1 });
    const [pooled] = await childrenSettleAt(1);
    process.kill(pooled!, 'SIGKILL');
    const pids = await childrenSettleAt(1, [pooled!]);
    expect(pids).toHaveLength(1);
    expect(pids[0]).not.toBe(pooled);
    expect(await valueOf(session, 'return "ran"')).toBe('ran');
  });

  it('says why a pooled child could not start, once, and starts another', async () => {
    const lines: Array<[string, string | undefined]> = [];
    open({ pool: 1 }, undefined, (line, level) => lines.push([line, level]));
    // Killed long before it could be ready (a Node start takes tens of milliseconds).
    const [first] = childPidsOf(process.pid);
    process.kill(first!, 'SIGKILL');
    await until('a log line', () => lines.length > 0);
    expect(lines[0]).toEqual([
      "codemode-mcp: a pooled script process could not start: the script's process exited before it was ready (killed by SIGKILL); the pool tries again in 1 s",
      'warn',
    ]);
    const [second] = await childrenSettleAt(1, [first!]);
    expect(second).not.toBe(first);
  });

  it('serves every run with the pool off', async () => {
    const { session } = open({ pool: 0 });
    expect(childPidsOf(process.pid)).toEqual([]);
    expect(await valueOf(session, 'return 1 + 1')).toBe(2);
  });

  it('drains on close: no pooled child is left', async () => {
    const { supply } = open({ pool: 2 });
    await childrenSettleAt(2);
    await supply.close();
    expect(childPidsOf(process.pid)).toEqual([]);
  });
});

describe('a child whose script has ended', () => {
  /** Alive and not a zombie. */
  const running = (pid: number) => !['Z', undefined].includes(statFieldsOf(pid)?.[0]);

  /** Starts a script that sleeps for `ms` in a child of its own (the pool off), and returns its pid with the run's answer. */
  async function sleeper(session: OwnerScripts, ms: number): Promise<{ pid: number; answered: Promise<unknown> }> {
    const answered = answerArguments(session, { code: `await sleep(${ms}); return "slept"` }, DEFAULT_SETTINGS.maxYieldMs, idle);
    const [pid] = await childrenSettleAt(1);
    return { pid: pid!, answered };
  }

  it('exits only once no other script runs, so its exit does not take CPU from them', async () => {
    // The clock stands still: the hold never runs out.
    const { session } = open({ pool: 0 }, undefined, undefined, new FakeClock());
    const released = vi.spyOn(ScriptChild.prototype, 'release');
    // The long script runs until the test stops it, however slow the machine.
    const long = await sleeper(session, 600_000);
    expect(await valueOf(session, 'return "short"')).toBe('short');
    const [short] = childPidsOf(process.pid).filter((pid) => pid !== long.pid);
    expect(short).toBeDefined();
    // The short one said its ending before its answer came; a release would follow within a turn.
    await new Promise(setImmediate);
    expect(released).not.toHaveBeenCalled();
    expect(running(short!)).toBe(true);
    const listed = (await answerArguments(session, { action: 'list' }, DEFAULT_SETTINGS.maxYieldMs, idle)).structuredContent as {
      scripts: Array<{ id: string; status: string }>;
    };
    const longScript = listed.scripts.find((script) => script.status === 'running')!;
    await answerArguments(session, { action: 'stop', script: longScript.id }, DEFAULT_SETTINGS.maxYieldMs, idle);
    await long.answered;
    // The last script ended: both go.
    expect(await waitForNoChildren(process.pid)).toEqual([]);
  });

  it('exits RETIRED_HOLD_MAX_MS after its ending while other scripts keep running', async () => {
    const clock = new FakeClock();
    const { session } = open({ pool: 0 }, undefined, undefined, clock);
    const long = await sleeper(session, 600_000);
    expect(await valueOf(session, 'return "short"')).toBe('short');
    expect(childPidsOf(process.pid)).toHaveLength(2);
    clock.advance(RETIRED_HOLD_MAX_MS);
    expect(await childrenSettleAt(1)).toEqual([long.pid]);
    expect(running(long.pid)).toBe(true);
  });
});
