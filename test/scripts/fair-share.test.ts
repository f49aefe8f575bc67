import { describe, expect, it } from 'vitest';
import { FAIR_SHARE_WINDOW_MS, FairShare } from '../../src/scripts/fair-share.js';
import { FakeClock } from './fake-clock.js';

/** Sessions asking for children of a FairShare over `maxScriptChildren`, on a fake clock. */
function share(maxScriptChildren: number) {
  const clock = new FakeClock();
  const fair = new FairShare<string>(maxScriptChildren, clock);
  let children = 0;
  /** Asks for `session`, and takes a child when its share allows one: the child, or the refusal. */
  const ask = (session: object): { child: string } | { refused: string } => {
    const refused = fair.refusal(session);
    if (refused !== undefined) return { refused };
    const child = `child ${++children}`;
    fair.took(session, child);
    return { child };
  };
  const childOf = (session: object): string => {
    const asked = ask(session);
    if ('refused' in asked) throw new Error(`refused: ${asked.refused}`);
    return asked.child;
  };
  return { clock, fair, ask, childOf };
}

describe("sessions' fair share of the children", () => {
  it('lets a session alone take every child and more: past the cap, the supply refuses, not its share', () => {
    const { ask } = share(2);
    const alone = {};
    for (let i = 0; i < 3; i++) expect(ask(alone)).toEqual({ child: `child ${i + 1}` });
  });

  it('gives two sessions half each: once the second asks, the first is refused past its half until a child is returned', () => {
    const { fair, ask, childOf } = share(4);
    const a = {};
    const b = {};
    const held = [childOf(a), childOf(a), childOf(a)];
    childOf(b);
    expect(ask(a)).toEqual({
      refused:
        "this session already runs 3 script processes, its share of the server's 4 (maxScriptChildren) while 2 sessions run scripts; wait for one of its scripts to end, or stop one",
    });
    fair.returned(held[0]!);
    expect(ask(a)).toEqual({ refused: expect.stringContaining('already runs 2 script processes, its share') });
    fair.returned(held[1]!);
    expect(ask(a)).toEqual({ child: expect.any(String) });
    childOf(b);
    expect(ask(b)).toEqual({ refused: expect.stringContaining('already runs 2 script processes') });
  });

  it('says "1 script process" for a session holding one', () => {
    const { ask, childOf } = share(2);
    const a = {};
    childOf(a);
    childOf({});
    expect(ask(a)).toEqual({ refused: expect.stringContaining('already runs 1 script process, its share') });
  });

  it('divides the cap among many sessions, rounding down, and gives each at least one', () => {
    const { ask, childOf } = share(10);
    const sessions = [{}, {}, {}, {}];
    for (const session of sessions) childOf(session);
    // 10 children, 4 sessions: a share of 2.
    childOf(sessions[0]!);
    expect(ask(sessions[0]!)).toEqual({ refused: expect.stringContaining('while 4 sessions run scripts') });

    const crowded = share(2);
    const many = [{}, {}, {}, {}, {}];
    // 2 children, 5 sessions: each may still hold one.
    for (const session of many) expect(crowded.ask(session)).toEqual({ child: expect.any(String) });
    expect(crowded.ask(many[0]!)).toEqual({ refused: expect.stringContaining('while 5 sessions run scripts') });
  });

  it('forgets a session that holds no child and has not asked for FAIR_SHARE_WINDOW_MS', () => {
    const { clock, fair, ask, childOf } = share(2);
    const a = {};
    const b = {};
    const first = childOf(a);
    childOf(a);
    expect(ask(b)).toEqual({ child: expect.any(String) });
    fair.returned(first);
    fair.returned('child 3');
    // B asked just now: it is active, and A is held to its half.
    expect(ask(a)).toEqual({ refused: expect.stringContaining('while 2 sessions') });
    clock.advance(FAIR_SHARE_WINDOW_MS);
    expect(ask(a)).toEqual({ refused: expect.stringContaining('while 2 sessions') });
    clock.advance(1);
    // Past the window, B is forgotten: A is alone again.
    expect(ask(a)).toEqual({ child: expect.any(String) });
  });

  it('counts a session holding a child however long ago it asked', () => {
    const { clock, ask, childOf } = share(2);
    const a = {};
    childOf(a);
    childOf({});
    clock.advance(10 * FAIR_SHARE_WINDOW_MS);
    expect(ask(a)).toEqual({ refused: expect.stringContaining('while 2 sessions') });
  });

  it('ignores the return of a child no session took', () => {
    const { fair, childOf } = share(1);
    fair.returned('a child of the pool');
    expect(childOf({})).toBe('child 1');
  });
});
