import type { Clock } from './clock.js';

/**
 * 60 s: a session that ran a script, or asked to, within this long counts as active, and the
 * server's children are shared out among the active sessions (FairShare).
 */
export const FAIR_SHARE_WINDOW_MS = 60_000;

/**
 * The server's children shared fairly between sessions: a session may hold at most its share,
 * `maxScriptChildren` divided by the sessions active in the last FAIR_SHARE_WINDOW_MS (itself
 * included), at least one. Alone, a session may use every child; once others ask, its runs past
 * its share are refused, so the children its scripts free go to them. `Held` is what a session
 * holds (a child), counted from `took` until `returned`.
 */
export class FairShare<Held> {
  /** Per session: children held, and when it last asked for one. */
  private readonly sessions = new Map<object, { held: number; askedAt: number }>();
  /** The session holding each child taken. */
  private readonly holders = new Map<Held, object>();

  constructor(
    private readonly maxScriptChildren: number,
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  /** `session` asks for a child now: why its share does not allow one, or undefined when it does. */
  refusal(session: object): string | undefined {
    const now = this.clock.now();
    const mine = this.sessions.get(session) ?? { held: 0, askedAt: now };
    mine.askedAt = now;
    this.sessions.set(session, mine);
    const active = this.activeSessions(now);
    const share = Math.max(1, Math.floor(this.maxScriptChildren / active));
    // Alone, its share is the whole cap, and the cap's own refusal says more.
    if (active === 1 || mine.held < share) return undefined;
    return (
      `this session already runs ${mine.held} script process${mine.held === 1 ? '' : 'es'}, its share of the server's ${this.maxScriptChildren} ` +
      `(maxScriptChildren) while ${active} sessions run scripts; wait for one of its scripts to end, or stop one`
    );
  }

  /** `session` was given `child` after asking (refusal said none). */
  took(session: object, child: Held): void {
    this.holders.set(child, session);
    this.sessions.get(session)!.held += 1;
  }

  /** `child` is gone: it no longer counts against its session's share. */
  returned(child: Held): void {
    const holder = this.holders.get(child);
    if (holder === undefined) return;
    this.holders.delete(child);
    this.sessions.get(holder)!.held -= 1;
  }

  /** Sessions holding a child or asking within the window; the others are forgotten. */
  private activeSessions(now: number): number {
    for (const [session, state] of this.sessions) {
      if (state.held === 0 && now - state.askedAt > FAIR_SHARE_WINDOW_MS) this.sessions.delete(session);
    }
    return this.sessions.size;
  }
}
