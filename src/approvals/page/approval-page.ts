/**
 * The approval page as a service (issue 46), one per server: a link per question (page-links.ts),
 * served by its own loopback listener when the server speaks stdio (loopback-listener.ts), or as
 * a route of the --http server. A question's link ends when the page decides, when the asking
 * ends otherwise (the client decided first, approvalTimeoutMs passed, the script ended), and what
 * became of it is what the link shows from then on.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ElicitResult } from '@modelcontextprotocol/client';
import type { Log } from '../../support/log.js';
import { LOOPBACK_HOST, LoopbackListener } from './loopback-listener.js';
import { PAGE_ENDED_KEPT_MS, PageLinks, type LinkEnd, type PageAnswer, type PageLink, type PageQuestion } from './page-links.js';
import { APPROVE_PATH, servePageRequest, type PageServing } from './page-requests.js';

/** Where the page is served. */
export type PagePlace =
  /** stdio: its own listener on 127.0.0.1, started by the first question. */
  | { readonly kind: 'loopback' }
  /** --http: a route of that server; `origin` as a person's browser reaches it. */
  | {
      readonly kind: 'route';
      readonly origin: () => string | undefined;
      readonly hostnames: readonly string[];
      readonly instance?: string;
    };

export interface ApprovalPageOptions {
  readonly place: PagePlace;
  /** approvalTimeoutMs: a link expires with its question. */
  readonly timeoutMs: number;
  readonly log: Log;
  /** Opens each new link in the person's browser (approvalOpenBrowser). */
  readonly openBrowser?: (url: string) => void;
  readonly now?: () => number;
  /** How long the loopback listener stays up with no question open; PAGE_ENDED_KEPT_MS unless a test says. */
  readonly idleMs?: number;
}

/** A question's link, open. */
export interface OpenedLink {
  readonly url: string;
  readonly link: PageLink;
  /** The page's decision as the form's answer; rejects with the signal's reason if that aborts first. */
  readonly decided: Promise<ElicitResult>;
  /** Ends the link otherwise than by the page (the client decided or declined first). */
  readonly end: (end: LinkEnd) => void;
}

const LOOPBACK_HOSTNAMES = [LOOPBACK_HOST, 'localhost'];

export class ApprovalPage {
  readonly links: PageLinks;
  private readonly listener: LoopbackListener | undefined;
  private readonly serving: PageServing;

  constructor(private readonly options: ApprovalPageOptions) {
    const { place, log } = options;
    this.links = new PageLinks(options.now);
    this.listener =
      place.kind === 'loopback'
        ? new LoopbackListener({
            handle: (req, res) => this.serve(req, res),
            onIdleClose: () => this.links.forgetEnded(),
            idleMs: options.idleMs ?? PAGE_ENDED_KEPT_MS,
            log,
          })
        : undefined;
    if (this.listener !== undefined) this.links.onOpenChange((open) => this.listener?.openChanged(open));
    this.serving = {
      links: this.links,
      hostnames: place.kind === 'loopback' ? LOOPBACK_HOSTNAMES : place.hostnames,
      origin: place.kind === 'loopback' ? () => this.listener?.originNow : place.origin,
      ...(place.kind === 'route' && place.instance !== undefined ? { instance: place.instance } : {}),
      log,
      ...(options.now !== undefined ? { now: options.now } : {}),
    };
  }

  /** Answers a request under /approve/ (the --http server's route, or the loopback listener's every request). */
  serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    return servePageRequest(req, res, this.serving);
  }

  /** Opens a link for `question`: it ends expired or withdrawn when `signal` aborts (approvalTimeoutMs, the script's end). */
  async open(question: PageQuestion, signal: AbortSignal): Promise<OpenedLink> {
    signal.throwIfAborted();
    const origin = await this.origin();
    signal.throwIfAborted();
    const { token, link } = this.links.issue(question, this.options.timeoutMs);
    const prefix =
      this.options.place.kind === 'route' && this.options.place.instance !== undefined ? `${this.options.place.instance}.` : '';
    const url = `${origin}${APPROVE_PATH}${prefix}${token}`;
    this.options.log(
      `codemode-mcp: approval page: link #${link.digest} for ${question.calls().length} call(s) of ${question.tool.name} by script ${question.script}`,
      'info',
    );
    const decided = new Promise<ElicitResult>((resolve, reject) => {
      const onAbort = (): void => {
        const expired = isTimeout(signal.reason) || (this.options.now ?? Date.now)() >= link.expiresAt;
        this.links.end(link, { kind: expired ? 'expired' : 'withdrawn' });
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      void link.decided.then((answer) => {
        signal.removeEventListener('abort', onAbort);
        resolve(answerAsResult(answer));
      });
    });
    this.options.openBrowser?.(url);
    return { url, link, decided, end: (end) => this.links.end(link, end) };
  }

  /** Stops serving (the loopback listener closes); open links end as withdrawn with their questions. */
  async close(): Promise<void> {
    await this.listener?.close();
  }

  private async origin(): Promise<string> {
    const { place } = this.options;
    if (place.kind === 'loopback') return this.listener!.origin();
    const origin = place.origin();
    if (origin === undefined) throw new Error('the approval page is not served yet: the HTTP server is not listening');
    return origin;
  }
}

/** The page's answer as the elicitation form's would be, so one reading decides both (approval-question.ts). */
export function answerAsResult(answer: PageAnswer): ElicitResult {
  return {
    action: 'accept',
    content: { decision: answer.choice, ...(answer.minutes !== undefined ? { minutes: answer.minutes } : {}) },
  };
}

function isTimeout(reason: unknown): boolean {
  return reason instanceof DOMException && reason.name === 'TimeoutError';
}
