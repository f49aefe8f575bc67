import { describe, expect, it } from 'vitest';
import { ChildPool, type ChildSource, type PoolChild, type PoolSettings, type Supplied } from '../../src/scripts/child-pool.js';
import { FAIR_SHARE_WINDOW_MS } from '../../src/scripts/fair-share.js';
import { POOL_SHRINK_AFTER_MS } from '../../src/scripts/pool-size.js';
import { REFILL_AFTER_FAILURE_MS, REFILL_AFTER_TAKE_MS, REFILL_HOLD_MAX_MS } from '../../src/scripts/refill-pace.js';
import { RETIRED_HOLD_MAX_MS } from '../../src/scripts/retired-hold.js';
import { FakeClock } from './fake-clock.js';

/** A child as the pool sees one, driven by the test: its start, its script's ending, its exit. */
class FakeChild implements PoolChild {
  ready: Promise<void>;
  readonly gone: Promise<void>;
  readonly catalogs: string[] = [];
  ending = false;
  released = false;
  exited = false;
  /** Its script ended with the engine intact (end(true)) and it has not exited. */
  intact = false;
  scripts = 0;
  resets = 0;
  private settleReady!: (error?: Error) => void;
  private settleGone!: () => void;

  constructor(
    readonly warm: boolean,
    private readonly onEnding: (child: FakeChild) => void,
  ) {
    this.ready = new Promise<void>((resolve, reject) => (this.settleReady = (error) => (error ? reject(error) : resolve())));
    void this.ready.catch(() => {});
    this.gone = new Promise<void>((resolve) => (this.settleGone = resolve));
  }

  offerCatalog(toolsJson: string): void {
    this.catalogs.push(toolsJson);
  }

  get reusable(): boolean {
    return this.ending && this.intact && !this.exited && !this.released;
  }

  /** A reset child's fresh engine is ready when the test says (readyAgain), or it exits first. */
  reset(): void {
    this.resets++;
    this.ending = false;
    this.intact = false;
    this.ready = new Promise<void>((resolve, reject) => (this.settleReady = (error) => (error ? reject(error) : resolve())));
  }

  /** It started: ready for a script. */
  becomeReady(): void {
    this.settleReady();
  }

  /** Its fresh engine (after a reset) is ready. */
  readyAgain(): void {
    this.settleReady();
  }

  /** A run takes it: it is given a script. */
  given(): this {
    this.scripts++;
    return this;
  }

  /** A released child exits at once, as a script's process does. */
  release(): void {
    this.released = true;
    this.exit();
  }

  /** Killed, it exits; one not yet ready was never ready, as a real child's `ready` rejects then. */
  kill(): void {
    this.settleReady(new Error("the script's process exited before it was ready (killed by SIGKILL)"));
    this.exit();
  }

  /** Its script has ended (`intact`: with the engine intact): it says so, and waits to be released or reset. */
  end(intact = false): void {
    this.ending = true;
    this.intact = intact;
    this.onEnding(this);
  }

  /** It exited before it was ready (after a reset: before its fresh engine was). */
  failToStart(reason: string): void {
    this.settleReady(new Error(reason));
    this.exit();
  }

  private exit(): void {
    if (this.exited) return;
    this.exited = true;
    this.ending = true;
    this.settleGone();
  }
}

/** A pool of fake children on a fake clock, with what it logged and every child it started. */
function open(settings: Partial<PoolSettings>, ready?: Promise<void>) {
  const clock = new FakeClock();
  const started: FakeChild[] = [];
  const lines: Array<[string, string | undefined]> = [];
  const pool = new ChildPool<FakeChild>(
    { pool: 1, maxScriptChildren: 16, childMaxScripts: 100, childMaxAgeMs: 300_000, ...settings },
    (warm, onEnding) => {
      const child = new FakeChild(warm, onEnding);
      started.push(child);
      return child;
    },
    (line, level) => lines.push([line, level]),
    ready,
    clock,
  );
  const alive = () => started.filter((child) => !child.exited);
  return { pool, clock, started, lines, alive };
}

/** The child a take supplied; a refusal fails the test. */
function takenChild(supplied: Supplied<FakeChild> | Promise<Supplied<FakeChild>>): FakeChild {
  if (supplied instanceof Promise) throw new Error('the run waits for a child');
  if (!('child' in supplied)) throw new Error(`refused: ${supplied.refused}`);
  return supplied.child;
}

/** Lets what the children's exits set off run (the pool hears of an exit on a promise). */
const settled = () => new Promise<void>(setImmediate);

/** Ends a child's script and waits for the pool to let it go (no other script running) and hear it exit. */
async function endAndExit(...children: FakeChild[]): Promise<void> {
  for (const child of children) child.end();
  await settled();
  await settled();
}

describe('the pool', () => {
  it('starts `pool` warm children, and a cold one for a run that finds it empty', () => {
    const { pool, started } = open({ pool: 2 });
    expect(started.map((child) => child.warm)).toEqual([true, true]);
    takenChild(pool.take());
    takenChild(pool.take());
    expect(takenChild(pool.take()).warm).toBe(false);
  });

  it('holds back all but one pooled child until the server has started, then fills the pool', async () => {
    let started!: () => void;
    const { pool, clock, alive, lines } = open({ pool: 3 }, new Promise<void>((resolve) => (started = resolve)));
    expect(pool.pooledCount).toBe(1);
    started();
    await settled();
    clock.advance(REFILL_AFTER_TAKE_MS - 1);
    expect(pool.pooledCount).toBe(1);
    clock.advance(1);
    expect(pool.pooledCount).toBe(3);
    expect(alive()).toHaveLength(3);
    expect(lines).toContainEqual(['codemode-mcp: started; the pool holds 3 children', 'debug']);
  });

  it('counts pooled children against maxScriptChildren, and refuses a run past it', () => {
    const { pool } = open({ pool: 3, maxScriptChildren: 2 });
    expect(pool.size).toBe(2);
    expect(pool.pooledCount).toBe(2);
    takenChild(pool.take());
    takenChild(pool.take());
    expect(pool.take()).toEqual({
      refused:
        'the server already runs 2 script processes, its maxScriptChildren; wait for a script to end, stop one, or raise --max-script-children',
    });
  });

  it('refills REFILL_AFTER_TAKE_MS after a take, and replaces a pooled child that exited', async () => {
    const { pool, clock, started } = open({ pool: 1 });
    const first = takenChild(pool.take());
    expect(pool.pooledCount).toBe(0);
    clock.advance(REFILL_AFTER_TAKE_MS);
    expect(pool.pooledCount).toBe(1);
    started[1]!.becomeReady();
    await settled();
    started[1]!.kill();
    await settled();
    expect(pool.pooledCount).toBe(1);
    expect(started).toHaveLength(3);
    expect(takenChild(pool.take())).toBe(started[2]);
    expect(first.exited).toBe(false);
  });

  it('says why a pooled child could not start, at warn once, then at debug, and tries again each REFILL_AFTER_FAILURE_MS', async () => {
    const { clock, started, lines } = open({ pool: 1 });
    started[0]!.failToStart('it exited');
    await settled();
    expect(lines).toEqual([
      ['codemode-mcp: a pooled script process could not start: it exited; the pool tries again in 1 s', 'warn'],
    ]);
    expect(started).toHaveLength(1);
    clock.advance(REFILL_AFTER_FAILURE_MS);
    expect(started).toHaveLength(2);
    started[1]!.failToStart('it exited again');
    await settled();
    expect(lines[1]).toEqual([
      'codemode-mcp: a pooled script process could not start: it exited again; the pool tries again in 1 s',
      'debug',
    ]);
  });

  it('sends the catalog to the pooled children, and to each it starts from then on', () => {
    const { pool, clock, started } = open({ pool: 1 });
    pool.offerCatalog('[1]');
    takenChild(pool.take());
    clock.advance(REFILL_AFTER_TAKE_MS);
    expect(started.map((child) => child.catalogs)).toEqual([['[1]'], ['[1]']]);
  });

  it('serves every run with the pool off', () => {
    const { pool, started } = open({ pool: 0 });
    expect(started).toEqual([]);
    expect(takenChild(pool.take()).warm).toBe(false);
    expect(pool.pooledCount).toBe(0);
  });

  it('on close, kills the pooled children, lets the held ones go, refuses runs and waits for every child to exit', async () => {
    const { pool, started, alive } = open({ pool: 2 });
    const running = takenChild(pool.take());
    let closed = false;
    const closing = pool.close().then(() => (closed = true));
    await settled();
    expect(alive()).toEqual([running]);
    expect(closed).toBe(false);
    expect(pool.take()).toEqual({ refused: 'the server is shutting down' });
    running.end();
    expect(running.released).toBe(true);
    await closing;
    expect(started.every((child) => child.exited)).toBe(true);
  });

  it('draining, refuses runs with the reason given, starts none ahead, and says when the last running script has ended', async () => {
    const { pool, clock, started } = open({ pool: 1 });
    const first = takenChild(pool.take());
    const second = takenChild(pool.take());
    let idle = false;
    const draining = pool.drain('instance a is draining').then(() => (idle = true));
    expect(pool.take()).toEqual({ refused: 'instance a is draining' });
    clock.advance(REFILL_AFTER_TAKE_MS);
    expect(started).toHaveLength(2);
    await endAndExit(first);
    expect(idle).toBe(false);
    await endAndExit(second);
    await draining;
    expect(started).toHaveLength(2);
  });

  it('draining with no script running is idle at once', async () => {
    const { pool } = open({ pool: 1 });
    await pool.drain('draining');
    expect(pool.pooledCount).toBe(1);
  });
});

describe('the pool under a burst', () => {
  it('grows to the runs at once when they come faster than it refills, counting a run a refill served', async () => {
    const { pool, clock, lines } = open({ pool: 1 });
    const taken = [takenChild(pool.take()), takenChild(pool.take())];
    // While scripts run an empty pool refills with one child; a third run takes it.
    clock.advance(REFILL_AFTER_TAKE_MS);
    expect(pool.pooledCount).toBe(1);
    taken.push(takenChild(pool.take()));
    await endAndExit(...taken);
    clock.advance(REFILL_AFTER_TAKE_MS);
    // Three ran at once: the pool keeps three ready (growing by one per run that found it empty would keep two).
    expect(pool.pooledCount).toBe(3);
    expect(pool.poolTarget).toBe(3);
    expect(lines.map(([line]) => line)).toContain(
      'codemode-mcp: runs came faster than the pool refilled: it keeps 3 children ready, until idle for 10 s',
    );
  });

  it('grows by one for a run that found it empty, with no other script running', async () => {
    const { pool } = open({ pool: 1 });
    await endAndExit(takenChild(pool.take()));
    expect(pool.pooledCount).toBe(0);
    takenChild(pool.take());
    expect(pool.poolTarget).toBe(2);
  });

  it('shrinks back to `pool` once full and idle for POOL_SHRINK_AFTER_MS, killing the children past it', async () => {
    const { pool, clock, alive, lines } = open({ pool: 1 });
    const taken = [takenChild(pool.take()), takenChild(pool.take()), takenChild(pool.take())];
    await endAndExit(...taken);
    clock.advance(REFILL_AFTER_TAKE_MS);
    expect(pool.pooledCount).toBe(3);
    clock.advance(POOL_SHRINK_AFTER_MS);
    expect(lines.map(([line]) => line)).toContain(
      'codemode-mcp: the pool was full and idle for 10 s: it shrinks back from 3 to 1 children',
    );
    expect(pool.pooledCount).toBe(1);
    await settled();
    expect(alive()).toHaveLength(1);
    expect(pool.poolTarget).toBe(1);
    // Regression: children the shrink killed while they started were logged as failing to start.
    expect(lines.map(([line]) => line).filter((line) => line.includes('could not start'))).toEqual([]);
  });
});

describe('a child whose script has ended', () => {
  it('is let go once no other script runs', async () => {
    const { pool } = open({ pool: 0 });
    const long = takenChild(pool.take());
    const short = takenChild(pool.take());
    short.end();
    await settled();
    expect(short.released).toBe(false);
    long.end();
    await settled();
    expect([short.released, long.released]).toEqual([true, true]);
  });

  it('is let go RETIRED_HOLD_MAX_MS after its ending while other scripts keep running', () => {
    const { pool, clock } = open({ pool: 0 });
    takenChild(pool.take());
    const short = takenChild(pool.take());
    short.end();
    clock.advance(RETIRED_HOLD_MAX_MS - 1);
    expect(short.released).toBe(false);
    clock.advance(1);
    expect(short.released).toBe(true);
  });

  it('is held when a script starts before the next turn', async () => {
    const { pool } = open({ pool: 0 });
    const short = takenChild(pool.take());
    short.end();
    takenChild(pool.take());
    await settled();
    expect(short.released).toBe(false);
  });

  it('no longer counts against maxScriptChildren', () => {
    const { pool } = open({ pool: 0, maxScriptChildren: 1 });
    const first = takenChild(pool.take());
    expect(pool.take()).toEqual({ refused: expect.stringContaining('its maxScriptChildren') });
    first.end();
    takenChild(pool.take());
  });
});

describe("sessions' fair share of the children", () => {
  it('a session alone may use every child; once another asks, its runs past its share are refused and the other gets the freed child', async () => {
    const { pool } = open({ pool: 0, maxScriptChildren: 2 });
    const a = pool.forSession({});
    const b = pool.forSession({});
    takenChild(a.take());
    const second = takenChild(a.take());
    // B asks while A holds both: the server's cap refuses it, and B now counts as active.
    expect(b.take()).toEqual({ refused: expect.stringContaining('maxScriptChildren') });
    second.kill();
    await settled();
    // With two sessions active A's share is 1, which it holds: the freed child is B's.
    expect(a.take()).toEqual({
      refused:
        "this session already runs 1 script process, its share of the server's 2 (maxScriptChildren) while 2 sessions run scripts; wait for one of its scripts to end, or stop one",
    });
    takenChild(b.take());
  });

  // Regression (both): an ended or killed script's child kept counting against its session's share
  // until it was gone, so under load the session's next run was refused.
  it.each([
    [
      'whose script has ended no longer counts while it is held back from exiting (another script runs)',
      (child: FakeChild) => {
        child.end();
        expect([child.released, child.exited]).toEqual([false, false]);
      },
    ],
    // A stop's kill: the script is answered at the exit, and its session runs again at once.
    ['killed mid-script stops counting at its exit, before it is gone', (child: FakeChild) => child.kill()],
  ])("a child %s against its session's share", (_, finish) => {
    const { pool } = open({ pool: 0, maxScriptChildren: 2 });
    const a = pool.forSession({});
    const b = pool.forSession({});
    const first = takenChild(a.take());
    takenChild(b.take());
    finish(first);
    takenChild(a.take());
  });

  it('a session that stopped asking is forgotten after FAIR_SHARE_WINDOW_MS', async () => {
    const { pool, clock } = open({ pool: 0, maxScriptChildren: 2 });
    const a = pool.forSession({});
    const b = pool.forSession({});
    takenChild(a.take());
    const lent = takenChild(b.take());
    lent.kill();
    await settled();
    expect(a.take()).toEqual({ refused: expect.stringContaining('while 2 sessions') });
    clock.advance(FAIR_SHARE_WINDOW_MS + 1);
    takenChild(a.take());
  });
});

/** A run of `source`'s: the child it was given a script on. */
function run(source: Pick<ChildSource<FakeChild>, 'take'>): FakeChild {
  return takenChild(source.take()).given();
}

/** Ends `child`'s script with its engine intact, and lets its reset end. */
async function endAndReset(child: FakeChild): Promise<void> {
  child.end(true);
  child.readyAgain();
  await settled();
}

describe('children reused for their session', () => {
  it("resets a child whose script ended intact and gives it to the same session's next run, never to another's", async () => {
    const { pool } = open({ pool: 2 });
    const alice = pool.forSession({});
    const bob = pool.forSession({});
    const first = run(alice);
    first.end(true);
    expect(first.resets).toBe(1);
    expect(first.released).toBe(false);
    // Still being reset: not handed out yet, but counted as kept.
    expect(pool.keptCount).toBe(1);
    first.readyAgain();
    await settled();
    expect(run(bob)).not.toBe(first);
    expect(run(alice)).toBe(first);
    expect(pool.keptCount).toBe(0);
  });

  it.each([
    ['its engine was not intact', {}, (child: FakeChild) => child.end(false)],
    ['it ran childMaxScripts', { childMaxScripts: 1 }, (child: FakeChild) => child.end(true)],
  ])('lets a child go rather than reset it when %s', async (_, settings, end) => {
    const { pool } = open({ pool: 2, ...settings });
    const child = run(pool.forSession({}));
    end(child);
    await settled();
    expect(child.resets).toBe(0);
    expect(child.released).toBe(true);
    expect(pool.keptCount).toBe(0);
  });

  it('lets a child past childMaxAgeMs go when its script ends', async () => {
    const { pool, clock } = open({ pool: 2, childMaxAgeMs: 1_000 });
    const old = run(pool.forSession({}));
    clock.advance(1_000);
    old.end(true);
    await settled();
    expect(old.released).toBe(true);
  });

  it("lets a kept child that aged past childMaxAgeMs go at its session's next run, which gets another", async () => {
    const { pool, clock } = open({ pool: 2, childMaxAgeMs: 1_000 });
    const alice = pool.forSession({});
    const kept = run(alice);
    await endAndReset(kept);
    expect(pool.keptCount).toBe(1);
    clock.advance(1_000);
    expect(run(alice)).not.toBe(kept);
    expect(kept.exited).toBe(true);
  });

  it("reuses nothing taken by the pool's own take(), which belongs to no session", async () => {
    const { pool } = open({ pool: 2 });
    const child = run(pool);
    child.end(true);
    await settled();
    expect(child.released).toBe(true);
  });

  it('gives a run waiting for its child being reset another child when that one exits during its reset, and forgets it', async () => {
    const { pool } = open({ pool: 2 });
    const alice = pool.forSession({});
    const first = run(alice);
    first.end(true);
    const waiting = alice.take();
    expect(waiting).toBeInstanceOf(Promise);
    first.failToStart('it exited during its reset');
    const second = takenChild(await waiting).given();
    expect(second).not.toBe(first);
    await settled();
    expect(pool.keptCount).toBe(0);
    await endAndReset(second);
    expect(run(alice)).toBe(second);
  });

  it('counts kept children in the pool: a server at rest holds `pool` children, one of them pooled for anyone', async () => {
    const { pool, clock, alive } = open({ pool: 2 });
    const alice = pool.forSession({});
    const first = run(alice);
    clock.advance(REFILL_AFTER_TAKE_MS);
    expect(pool.pooledCount).toBe(1);
    await endAndReset(first);
    expect(pool.keptCount).toBe(1);
    expect(pool.pooledCount).toBe(1);
    expect(alive()).toHaveLength(2);
    // While she runs scripts, each child of hers that ends is kept, past the pool's room for them;
    // those past it go once they have waited KEPT_IDLE_MS (POOL_SHRINK_AFTER_MS) for her.
    const [a, b] = [run(alice), run(alice)];
    await endAndReset(a);
    await endAndReset(b);
    expect(pool.keptCount).toBe(2);
    clock.advance(POOL_SHRINK_AFTER_MS);
    await settled();
    expect(pool.keptCount).toBe(1);
    expect(pool.pooledCount).toBe(1);
    expect(alive()).toHaveLength(2);
  });

  it('lets a kept child of another owner go to make room at maxScriptChildren', async () => {
    const { pool } = open({ pool: 1, maxScriptChildren: 2 });
    const alice = pool.forSession({});
    const bob = pool.forSession({});
    const [a1, a2] = [run(alice), run(alice)];
    await endAndReset(a1);
    await endAndReset(a2);
    expect(pool.keptCount).toBe(2);
    const forBob = run(bob);
    expect([a1, a2]).not.toContain(forBob);
    expect(a1.exited).toBe(true);
    expect(run(alice)).toBe(a2);
  });

  it('lets kept children go, oldest first, when a pool grown by a burst shrinks back', async () => {
    const { pool, clock, alive } = open({ pool: 2, maxScriptChildren: 8 });
    const alice = pool.forSession({});
    const burst = [run(alice), run(alice), run(alice), run(alice)];
    expect(pool.poolTarget).toBe(4);
    for (const child of burst) await endAndReset(child);
    expect(pool.keptCount).toBe(4);
    // Full again once the refill after the takes has run: the kept children count as the pool's.
    clock.advance(REFILL_AFTER_TAKE_MS);
    expect(pool.pooledCount).toBe(1);
    clock.advance(POOL_SHRINK_AFTER_MS);
    await settled();
    expect(pool.keptCount).toBe(1);
    expect(alive()).toHaveLength(2);
    // The most recently kept stays: its owner's next run takes it.
    expect(burst.map((child) => child.exited)).toEqual([true, true, true, false]);
  });

  it("lets a session's kept children go when it is done, and one being reset for it once the reset ends", async () => {
    const { pool } = open({ pool: 3 });
    const alice = pool.forSession({});
    const [kept, resetting] = [run(alice), run(alice)];
    await endAndReset(kept);
    resetting.end(true);
    alice.done();
    await settled();
    expect(kept.exited).toBe(true);
    expect(resetting.exited).toBe(false);
    resetting.readyAgain();
    await settled();
    expect(resetting.exited).toBe(true);
    expect(pool.keptCount).toBe(0);
  });

  it('lets kept children go when the pool drains or closes', async () => {
    const { pool } = open({ pool: 2 });
    const alice = pool.forSession({});
    const kept = run(alice);
    await endAndReset(kept);
    await pool.drain('draining');
    expect(kept.exited).toBe(true);
    await pool.close();
  });
});

describe("a run that finds no child idle, and its session's busy children", () => {
  /** A pool of one whose child took `startMs` to start and served one of `session`'s scripts in `turnMs`; the child is kept for `session`. */
  async function measured(startMs: number, turnMs: number) {
    const opened = open({ pool: 1 });
    const { pool, clock, started } = opened;
    clock.advance(startMs);
    started[0]!.readyAgain();
    await settled();
    const session = pool.forSession({});
    const child = run(session);
    clock.advance(turnMs);
    await endAndReset(child);
    return { ...opened, session, child };
  }

  it("waits for one of its session's children being reset, and is given it rather than a new process", async () => {
    const { pool, started } = open({ pool: 1 });
    const session = pool.forSession({});
    const first = run(session);
    first.end(true);
    const waiting = session.take();
    expect(waiting).toBeInstanceOf(Promise);
    first.readyAgain();
    expect(takenChild(await waiting)).toBe(first);
    expect(started).toHaveLength(1);
  });

  it("waits for its session's child being reset even with a pooled child free: that one stays for another session", async () => {
    const { pool, clock, started } = open({ pool: 2 });
    const session = pool.forSession({});
    const first = run(session);
    clock.advance(REFILL_AFTER_TAKE_MS);
    expect(pool.pooledCount).toBe(1);
    first.end(true);
    const waiting = session.take();
    expect(waiting).toBeInstanceOf(Promise);
    first.readyAgain();
    expect(takenChild(await waiting)).toBe(first);
    expect(pool.pooledCount).toBe(1);
    expect(run(pool.forSession({}))).toBe(started[1]);
  });

  it('waits for its busy child when its measured turn is shorter than a start, and is given it once reset', async () => {
    const { session, child, started } = await measured(300, 50);
    expect(run(session)).toBe(child);
    const waiting = session.take();
    expect(waiting).toBeInstanceOf(Promise);
    await endAndReset(child);
    expect(takenChild(await waiting)).toBe(child);
    expect(started).toHaveLength(1);
  });

  it('starts a process at once when its turn is longer than a start, or no start was measured yet', async () => {
    const { session, child } = await measured(300, 500);
    expect(run(session)).toBe(child);
    // Started for the run: not pooled ahead (no warm-up).
    expect(run(session)).toMatchObject({ warm: false, exited: false });
    const { pool } = open({ pool: 1 });
    const unmeasured = pool.forSession({});
    run(unmeasured);
    expect(unmeasured.take()).not.toBeInstanceOf(Promise);
  });

  it("waits for its session's busy child before any of its turns is measured, up to a start's time, then starts one", async () => {
    const { pool, clock, started } = open({ pool: 1 });
    clock.advance(300);
    started[0]!.readyAgain();
    await settled();
    const session = pool.forSession({});
    const first = run(session);
    const waiting = session.take();
    expect(waiting).toBeInstanceOf(Promise);
    clock.advance(50);
    await endAndReset(first);
    expect(takenChild(await waiting)).toBe(first);
    // Its turn is measured now (50 ms); a script longer than a start: the next run waits a start's time, then is given a process.
    const slow = session.take();
    expect(slow).toBeInstanceOf(Promise);
    clock.advance(300);
    const fresh = takenChild(await slow);
    expect(fresh).not.toBe(first);
    expect(fresh).toMatchObject({ warm: false });
  });

  it('is served by a start as soon as the child it waits for ends spent, or once a start would have been ready', async () => {
    const { session, child, clock } = await measured(300, 50);
    run(session);
    const waiting = session.take();
    expect(waiting).toBeInstanceOf(Promise);
    child.end(false);
    const fresh = takenChild(await waiting).given();
    expect(fresh).not.toBe(child);
    const second = session.take();
    expect(second).toBeInstanceOf(Promise);
    clock.advance(300);
    expect([child, fresh]).not.toContain(takenChild(await second));
  });

  /** A pool of two, both children started in 300 ms; a session's first script took 50 ms, and its child is kept for it: the other is pooled. */
  async function keptAndPooled() {
    const opened = open({ pool: 2 });
    const { pool, clock, started } = opened;
    clock.advance(300);
    for (const child of started) child.readyAgain();
    await settled();
    const session = pool.forSession({});
    const kept = run(session);
    clock.advance(50);
    await endAndReset(kept);
    clock.advance(REFILL_AFTER_TAKE_MS);
    expect(started).toHaveLength(2);
    return { ...opened, session, kept, pooled: started[1]! };
  }

  it("holds the pool's refill while runs wait in line for their children, and refills REFILL_AFTER_TAKE_MS after none waits", async () => {
    const { session, kept, pooled, clock, started } = await keptAndPooled();
    expect(run(session)).toBe(kept);
    expect(run(session)).toBe(pooled);
    const waiting = session.take();
    expect(waiting).toBeInstanceOf(Promise);
    // The take's refill would start a child for anyone now: the line holds it.
    clock.advance(REFILL_AFTER_TAKE_MS);
    expect(started).toHaveLength(2);
    await endAndReset(kept);
    expect(takenChild(await waiting)).toBe(kept);
    // Not at once: the last runs served have scripts to run.
    expect(started).toHaveLength(2);
    clock.advance(REFILL_AFTER_TAKE_MS);
    expect(started).toHaveLength(3);
    expect(started[2]).toMatchObject({ warm: true });
  });

  it('refills after REFILL_HOLD_MAX_MS even while runs keep waiting in line', async () => {
    const { session, kept, pooled, clock, started } = await keptAndPooled();
    const children = [run(session), run(session)];
    expect(children).toEqual([kept, pooled]);
    let served = 0;
    const waiting = Array.from({ length: 40 }, () => session.take());
    expect(waiting.every((take) => take instanceof Promise)).toBe(true);
    for (const take of waiting) void (take as Promise<Supplied<FakeChild>>).then(() => served++);
    // The line moves every 50 ms, one of the session's children freed after another: it never stalls.
    for (let elapsed = 0; elapsed < REFILL_HOLD_MAX_MS - 50; elapsed += 50) {
      clock.advance(50);
      await endAndReset(children[(elapsed / 50) % 2]!);
    }
    expect(started).toHaveLength(2);
    clock.advance(50);
    expect(started).toHaveLength(3);
    expect(served).toBeLessThan(waiting.length);
  });

  it('never waits for another session’s children, and a drain ends every wait with its refusal', async () => {
    const { pool, session, child } = await measured(300, 50);
    expect(run(session)).toBe(child);
    const other = pool.forSession({});
    expect(other.take()).not.toBeInstanceOf(Promise);
    const waiting = session.take();
    expect(waiting).toBeInstanceOf(Promise);
    void pool.drain('instance a is draining');
    expect(await waiting).toEqual({ refused: 'instance a is draining' });
  });
});
