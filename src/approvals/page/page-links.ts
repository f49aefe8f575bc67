/**
 * The approval page's links (issue 46): one per question, each an unguessable one-time token bound
 * to that question (its script, principal, tool and the calls' digest: a decision counts only for
 * the calls the page it came from showed, and calls that joined the batch since make the person
 * look again), open until a person
 * decides, the client decides first, approvalTimeoutMs passes or the script ends. An ended link is
 * kept a while so that opening it says plainly what became of it. Tokens never reach a log: a link
 * is named there by its digest (`#3fa9c1d2e4b5`).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { deferred, type Deferred } from '../../support/deferred.js';
import type { AskedTool } from '../approval-question.js';

/** 32 bytes (256 bits) of randomness in each link's token, and as many in its page's form token. */
export const PAGE_TOKEN_BYTES = 32;

/**
 * 5 minutes: an ended link is kept this long, so that opening it says what became of it (then it is
 * unknown); the stdio listener closes once no question has been open this long.
 */
export const PAGE_ENDED_KEPT_MS = 5 * 60_000;

/** 1,000: ended links kept at most; past it the oldest are forgotten first (and then read as unknown). */
export const PAGE_ENDED_KEPT_MAX = 1_000;

/** The answers the page offers: the elicitation form's (approval-question.ts). */
export const PAGE_CHOICES = ['allow', 'allow-script', 'allow-owner', 'deny', 'review'] as const;
export type PageChoice = (typeof PAGE_CHOICES)[number];

export interface PageAnswer {
  readonly choice: PageChoice;
  /** With `allow-owner`: for how many minutes. */
  readonly minutes?: number;
}

/** The question a link shows. */
export interface PageQuestion {
  readonly script: string;
  /** Whose script: the principal, as the audit log names it. */
  readonly principal: string;
  /** How the session or principal is named in the choice that allows it for a time: `this session`. */
  readonly owner: string;
  readonly tool: AskedTool;
  /** The calls waiting on the answer now, each its arguments as JSON text (calls of the batch that arrive meanwhile join). */
  readonly calls: () => readonly string[];
}

/** How a link ended: decided (on the page or in the client), expired, or withdrawn (the script ended, the asking failed). */
export type LinkEnd =
  | { readonly kind: 'decided'; readonly answer: PageAnswer; readonly where: 'page' | 'client' }
  | { readonly kind: 'declined'; readonly where: 'client' }
  | { readonly kind: 'expired' }
  | { readonly kind: 'withdrawn' };

export interface PageLink {
  /** Names the link in logs: the first 12 hex digits of the token's SHA-256. */
  readonly digest: string;
  readonly question: PageQuestion;
  readonly issuedAt: number;
  readonly expiresAt: number;
  /** Settles when a person decides on the page (never when the link ends otherwise). */
  readonly decided: Promise<PageAnswer>;
}

interface Held {
  readonly link: PageLink;
  /** Issue order, for the question that came after another. */
  readonly seq: number;
  /** The token the page's form must carry (per page, so a form not from this page decides nothing). */
  readonly formToken: Buffer;
  readonly decision: Deferred<PageAnswer>;
  end?: LinkEnd & { readonly at: number; readonly calls: readonly string[] };
}

/** What a token names now: an open link with the calls waiting and their digest (the form carries it back), or how it ended, with the calls it decided. */
export type LinkState =
  | {
      readonly kind: 'open';
      readonly link: PageLink;
      readonly calls: readonly string[];
      readonly bound: string;
      readonly formToken: string;
    }
  | { readonly kind: 'ended'; readonly link: PageLink; readonly calls: readonly string[]; readonly end: LinkEnd }
  | { readonly kind: 'unknown' };

/** Why a decision was refused; nothing changed, and the link is still as it was. */
export type Refusal = 'unknown' | 'ended' | 'form-token' | 'bound';

export class PageLinks {
  private readonly held = new Map<string, Held>();
  private readonly byLink = new WeakMap<PageLink, Held>();
  private issued = 0;
  private readonly openListeners = new Set<(open: number) => void>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new link for `question`, open for `timeoutMs` at most. Returns its token (for the URL only) and the link. */
  issue(question: PageQuestion, timeoutMs: number): { readonly token: string; readonly link: PageLink } {
    this.prune();
    const token = randomBytes(PAGE_TOKEN_BYTES).toString('base64url');
    const decision = deferred<PageAnswer>();
    const issuedAt = this.now();
    const link: PageLink = {
      digest: digestOf(token),
      question,
      issuedAt,
      expiresAt: issuedAt + timeoutMs,
      decided: decision.promise,
    };
    const held: Held = { link, seq: ++this.issued, formToken: randomBytes(PAGE_TOKEN_BYTES), decision };
    this.held.set(token, held);
    this.byLink.set(link, held);
    this.tellOpen();
    return { token, link };
  }

  /** What `token` names now; an open link past its time reads as expired. */
  state(token: string): LinkState {
    const held = this.held.get(token);
    if (held === undefined) return { kind: 'unknown' };
    if (held.end === undefined && this.now() >= held.link.expiresAt) this.endHeld(held, { kind: 'expired' });
    if (held.end !== undefined) return { kind: 'ended', link: held.link, calls: held.end.calls, end: held.end };
    const calls = held.link.question.calls();
    return {
      kind: 'open',
      link: held.link,
      calls,
      bound: boundDigest(held.link.question, calls),
      formToken: held.formToken.toString('base64url'),
    };
  }

  /**
   * A person's decision from the page: taken only for an open link, with its page's form token and
   * the digest of the calls it showed (still the calls waiting). Refused, nothing changes.
   */
  decide(token: string, form: { formToken: string; bound: string }, answer: PageAnswer): PageLink | Refusal {
    const state = this.state(token);
    if (state.kind === 'unknown') return 'unknown';
    if (state.kind === 'ended') return 'ended';
    const held = this.held.get(token)!;
    if (!sameBytes(Buffer.from(form.formToken, 'base64url'), held.formToken)) return 'form-token';
    if (form.bound !== state.bound) return 'bound';
    this.endHeld(held, { kind: 'decided', answer, where: 'page' });
    held.decision.resolve(answer);
    return held.link;
  }

  /** Ends `link` otherwise than by the page (the client decided, it expired, it was withdrawn); an ended link stays as it ended. */
  end(link: PageLink, end: LinkEnd): void {
    const held = this.byLink.get(link);
    if (held !== undefined && held.end === undefined) this.endHeld(held, end);
  }

  /**
   * The token of the first open link the same script was given after `link` (the next call of a
   * one-by-one review, say), for the ended page to point the person to; undefined when none waits.
   */
  nextOpen(link: PageLink): string | undefined {
    const after = this.byLink.get(link)?.seq ?? Number.POSITIVE_INFINITY;
    let next: [string, Held] | undefined;
    for (const entry of this.held) {
      const [, held] = entry;
      if (held.end !== undefined || held.seq <= after || held.link.question.script !== link.question.script) continue;
      if (next === undefined || held.seq < next[1].seq) next = entry;
    }
    return next?.[0];
  }

  /** How many links are open now. */
  get openCount(): number {
    return [...this.held.values()].filter((held) => held.end === undefined).length;
  }

  /** Tells `listener` the number of open links whenever a link opens or ends. */
  onOpenChange(listener: (open: number) => void): () => void {
    this.openListeners.add(listener);
    return () => this.openListeners.delete(listener);
  }

  /** Forgets every ended link (the listener that served them closed: their URLs name a port no longer served). */
  forgetEnded(): void {
    for (const [token, held] of this.held) if (held.end !== undefined) this.held.delete(token);
  }

  private endHeld(held: Held, end: LinkEnd): void {
    held.end = { ...end, at: this.now(), calls: held.link.question.calls() };
    this.tellOpen();
  }

  private tellOpen(): void {
    const open = this.openCount;
    for (const listener of [...this.openListeners]) listener(open);
  }

  /** Drops ended links kept past PAGE_ENDED_KEPT_MS, and the oldest past PAGE_ENDED_KEPT_MAX. */
  private prune(): void {
    const now = this.now();
    const ended = [...this.held].filter(([, held]) => held.end !== undefined);
    for (const [token, held] of ended) if (now - held.end!.at >= PAGE_ENDED_KEPT_MS) this.held.delete(token);
    const kept = ended.filter(([token]) => this.held.has(token)).sort(([, a], [, b]) => a.end!.at - b.end!.at);
    for (const [token] of kept.slice(0, Math.max(0, kept.length - PAGE_ENDED_KEPT_MAX))) this.held.delete(token);
  }
}

/** `3fa9c1d2e4b5`: a token as logs, traces and the audit log may name it. */
export function digestOf(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 12);
}

/** The question's binding: whose script, which tool, and exactly which calls. */
function boundDigest(question: PageQuestion, calls: readonly string[]): string {
  const hash = createHash('sha256');
  for (const part of [question.principal, question.script, question.tool.name, ...calls]) {
    hash.update(`${Buffer.byteLength(part)}:${part}`);
  }
  return hash.digest('base64url');
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
