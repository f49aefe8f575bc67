import { describe, expect, it } from 'vitest';
import {
  PAGE_ENDED_KEPT_MS,
  PAGE_TOKEN_BYTES,
  PageLinks,
  digestOf,
  type PageQuestion,
} from '../../../src/approvals/page/page-links.js';

/** A clock the test moves. */
function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

function question(calls: string[] = ['{"path":"a.txt"}'], script = 'a1b2c3-1'): PageQuestion {
  return { script, principal: 'alice', owner: 'principal alice', tool: { name: 'fs__delete_file' }, calls: () => calls };
}

/** The form fields an open link's page carries. */
function formOf(links: PageLinks, token: string): { formToken: string; bound: string } {
  const state = links.state(token);
  if (state.kind !== 'open') throw new Error(`the link is ${state.kind}`);
  return { formToken: state.formToken, bound: state.bound };
}

describe('approval page links', () => {
  it('are unguessable: 256 bits each, base64url, never the same twice; logs name them by a digest', () => {
    const links = new PageLinks();
    const tokens = new Set(Array.from({ length: 200 }, () => links.issue(question(), 60_000).token));
    expect(tokens.size).toBe(200);
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token, 'base64url').length).toBe(PAGE_TOKEN_BYTES);
      expect(PAGE_TOKEN_BYTES * 8).toBeGreaterThanOrEqual(128);
    }
    const [token] = tokens;
    expect(digestOf(token!)).toMatch(/^[0-9a-f]{12}$/);
    expect(token).not.toContain(digestOf(token!));
  });

  it('decide once: the decision settles the link, and every later one is refused as ended', async () => {
    const links = new PageLinks();
    const { token, link } = links.issue(question(), 60_000);
    const form = formOf(links, token);
    expect(links.decide(token, form, { choice: 'allow' })).toBe(link);
    await expect(link.decided).resolves.toEqual({ choice: 'allow' });
    expect(links.decide(token, form, { choice: 'deny' })).toBe('ended');
    expect(links.state(token)).toMatchObject({
      kind: 'ended',
      end: { kind: 'decided', where: 'page', answer: { choice: 'allow' } },
    });
  });

  it('refuse a form token or a calls digest not its own, and an unknown token, changing nothing', () => {
    const links = new PageLinks();
    const first = links.issue(question(), 60_000);
    const second = links.issue(question(['{"path":"b.txt"}']), 60_000);
    const form = formOf(links, first.token);
    const other = formOf(links, second.token);
    expect(links.decide(first.token, { ...form, formToken: other.formToken }, { choice: 'allow' })).toBe('form-token');
    expect(links.decide(first.token, { ...form, bound: other.bound }, { choice: 'allow' })).toBe('bound');
    expect(links.decide(first.token, { ...form, formToken: '' }, { choice: 'allow' })).toBe('form-token');
    expect(links.decide(`${first.token.slice(0, -1)}x`, form, { choice: 'allow' })).toBe('unknown');
    expect(links.state(first.token).kind).toBe('open');
    expect(links.openCount).toBe(2);
    expect(links.decide(first.token, form, { choice: 'deny' })).toBe(first.link);
  });

  it('bind a decision to the calls the page showed: a call that joined since makes the person look again', () => {
    const calls = ['{"path":"a.txt"}'];
    const links = new PageLinks();
    const { token } = links.issue(question(calls), 60_000);
    const shown = formOf(links, token);
    calls.push('{"path":"b.txt"}');
    expect(links.decide(token, shown, { choice: 'allow' })).toBe('bound');
    const again = formOf(links, token);
    expect(again.bound).not.toBe(shown.bound);
    expect(links.decide(token, again, { choice: 'allow' })).not.toBeTypeOf('string');
    expect(links.state(token)).toMatchObject({ kind: 'ended', calls: ['{"path":"a.txt"}', '{"path":"b.txt"}'] });
  });

  it('expire with the question: past its time an open link reads as expired and decides nothing', () => {
    const time = clock();
    const links = new PageLinks(time.now);
    const { token } = links.issue(question(), 1_000);
    const form = formOf(links, token);
    time.advance(1_000);
    expect(links.decide(token, form, { choice: 'allow' })).toBe('ended');
    expect(links.state(token)).toMatchObject({ kind: 'ended', end: { kind: 'expired' } });
  });

  it('keep an ended link for PAGE_ENDED_KEPT_MS, then forget it; open ones are never forgotten', () => {
    const time = clock();
    const links = new PageLinks(time.now);
    const ended = links.issue(question(), 60 * 60_000);
    const open = links.issue(question(), 60 * 60_000);
    links.end(ended.link, { kind: 'withdrawn' });
    time.advance(PAGE_ENDED_KEPT_MS - 1);
    links.issue(question(), 60 * 60_000);
    expect(links.state(ended.token).kind).toBe('ended');
    time.advance(1);
    links.issue(question(), 60 * 60_000);
    expect(links.state(ended.token).kind).toBe('unknown');
    expect(links.state(open.token).kind).toBe('open');
  });

  it('say how many are open as links open and end', () => {
    const links = new PageLinks();
    const seen: number[] = [];
    links.onOpenChange((open) => seen.push(open));
    const a = links.issue(question(), 60_000);
    const b = links.issue(question(), 60_000);
    links.end(a.link, { kind: 'decided', where: 'client', answer: { choice: 'deny' } });
    links.end(a.link, { kind: 'withdrawn' });
    links.end(b.link, { kind: 'expired' });
    expect(seen).toEqual([1, 2, 1, 0]);
    expect(links.state(a.token)).toMatchObject({ end: { kind: 'decided', where: 'client' } });
  });
});
