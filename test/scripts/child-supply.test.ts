import { afterEach, describe, expect, it, vi } from 'vitest';
import { ScriptChild } from '../../src/script-host/script-child.js';
import { ChildSupply, type Supplied } from '../../src/scripts/child-supply.js';
import { RETIRED_HOLD_MAX_MS } from '../../src/scripts/retired-hold.js';
import { SessionScripts, type WatchContext } from '../../src/scripts/session-scripts.js';
import { DEFAULT_SETTINGS, type Settings } from '../../src/config/settings.js';
import { childPidsOf, statFieldsOf, waitForNoChildren } from '../support/processes.js';
import { until } from '../support/waiting.js';
import { FakeClock } from './fake-clock.js';

const opened: Array<{ session: SessionScripts; supply: ChildSupply }> = [];
const idle: WatchContext = { signal: new AbortController().signal };

function open(
  settings: Partial<Settings>,
  ready?: Promise<void>,
  log: (line: string, level?: string) => void = () => {},
  clock?: FakeClock,
): { session: SessionScripts; supply: ChildSupply } {
  const all = { ...DEFAULT_SETTINGS, ...settings };
  const supply = new ChildSupply(all, log, ready, clock);
  const session = new SessionScripts({
    supply,
    catalog: () => [],
    unlisted: () => [],
    callTool: async () => ({ content: [] }),
    settings: all,
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

/** The child a take supplied; a refusal fails the test. */
function takenChild(supplied: Supplied): ScriptChild {
  if (!('child' in supplied)) throw new Error(`refused: ${supplied.refused}`);
  return supplied.child;
}

const valueOf = async (session: SessionScripts, code: string) =>
  ((await session.handle({ code }, idle)).structuredContent as { value?: unknown }).value;

describe('the warm pool', () => {
  it('gives each script a fresh child, and nothing of one script is visible to the next', async () => {
    const { session } = open({ pool: 1 });
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

  it('holds back all but one pooled child until the server has started, then fills the pool', async () => {
    let started!: () => void;
    const { supply } = open({ pool: 3 }, new Promise<void>((resolve) => (started = resolve)));
    expect(await childrenSettleAt(1)).toHaveLength(1);
    expect(supply.pooledCount).toBe(1);
    started();
    expect(await childrenSettleAt(3)).toHaveLength(3);
    expect(supply.pooledCount).toBe(3);
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

  it('counts pooled children against maxScriptChildren', async () => {
    const { session, supply } = open({ pool: 3, maxScriptChildren: 2 });
    await childrenSettleAt(2);
    expect(supply.size).toBe(2);
    expect(await valueOf(session, 'return 1')).toBe(1);
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

describe('the pool under a burst', () => {
  it('grows to the runs at once when they come faster than it refills, counting a run a refill served', async () => {
    const lines: string[] = [];
    const { supply } = open({ pool: 1 }, undefined, (line) => lines.push(line));
    const taken: Array<{ kill(): void; gone: Promise<unknown> }> = [];
    const take = () => taken.push(takenChild(supply.take()));
    try {
      await childrenSettleAt(1);
      take(); // the pooled child
      take(); // the pool is empty: a child is spawned for this run
      // While scripts run an empty pool refills with one child; a third run takes it.
      await childrenSettleAt(3);
      expect(supply.pooledCount).toBe(1);
      take();
      for (const child of taken.splice(0)) child.kill();
      // Three ran at once: the pool keeps three ready (growing by one per run that found it empty would keep two).
      expect(await childrenSettleAt(3)).toHaveLength(3);
      await until(
        'three pooled children',
        () => supply.pooledCount === 3,
        () => `${supply.pooledCount} pooled`,
      );
      expect(lines).toContain(
        'codemode-mcp: runs came faster than the pool refilled: it keeps 3 children ready, until idle for 10 s',
      );
    } finally {
      for (const child of taken) child.kill();
      await Promise.all(taken.map((child) => child.gone));
    }
  });

  it('grows by one for a run that found it empty, with no other script running', async () => {
    // No refill after a take while the clock stands still: the pool stays empty once its child is taken.
    const supply = new ChildSupply({ ...DEFAULT_SETTINGS, pool: 1 }, () => {}, undefined, new FakeClock());
    const taken: ScriptChild[] = [];
    try {
      await childrenSettleAt(1);
      const first = takenChild(supply.take());
      first.kill();
      await first.gone;
      expect(supply.pooledCount).toBe(0);
      // One script at a time, yet faster than the pool refills: it keeps one more.
      taken.push(takenChild(supply.take()));
      expect(supply.poolTarget).toBe(2);
    } finally {
      for (const child of taken) child.kill();
      await supply.close();
    }
  });
});

describe('a child whose script has ended', () => {
  /** Alive and not a zombie. */
  const running = (pid: number) => !['Z', undefined].includes(statFieldsOf(pid)?.[0]);

  /** Starts a script that sleeps for `ms` in a child of its own (the pool off), and returns its pid with the run's answer. */
  async function sleeper(session: SessionScripts, ms: number): Promise<{ pid: number; answered: Promise<unknown> }> {
    const answered = session.handle({ code: `await sleep(${ms}); return "slept"` }, idle);
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
    const listed = (await session.handle({ action: 'list' }, idle)).structuredContent as {
      scripts: Array<{ id: string; status: string }>;
    };
    const longScript = listed.scripts.find((script) => script.status === 'running')!;
    await session.handle({ action: 'stop', script: longScript.id }, idle);
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

describe("sessions' fair share of the children", () => {
  it('a session alone may use every child; once another asks, its runs past its share are refused and the other gets the freed child', async () => {
    const { supply } = open({ pool: 0, maxScriptChildren: 2 });
    const a = supply.forSession({});
    const b = supply.forSession({});
    const taken: Array<{ kill(): void; gone: Promise<unknown> }> = [];
    const childOf = (supplied: ReturnType<typeof a.take>) => {
      if (!('child' in supplied)) throw new Error(`refused: ${supplied.refused}`);
      taken.push(supplied.child);
      return supplied.child;
    };
    try {
      childOf(a.take());
      const second = childOf(a.take());
      // B asks while A holds both: the server's cap refuses it, and B now counts as active.
      expect(b.take()).toEqual({ refused: expect.stringContaining('maxScriptChildren') });
      second.kill();
      await second.gone;
      // With two sessions active A's share is 1, which it holds: the freed child is B's.
      expect(a.take()).toEqual({
        refused:
          "this session already runs 1 script process, its share of the server's 2 (maxScriptChildren) while 2 sessions run scripts; wait for one of its scripts to end, or stop one",
      });
      childOf(b.take());
    } finally {
      for (const child of taken) child.kill();
      await Promise.all(taken.map((child) => child.gone));
    }
  });
});
