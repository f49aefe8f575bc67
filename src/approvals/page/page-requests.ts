/**
 * The approval page's HTTP answers (issue 46): `GET /approve/<link>` shows the question (or what
 * became of it), `POST /approve/<link>` takes a person's decision. Safe as a page a hostile
 * script's arguments appear on: Host and Origin must name this server (DNS rebinding, cross-site
 * forms), a decision must carry its page's form token and the calls' digest, and a refused request
 * changes nothing and uses nothing up. Every answer is `no-store`, under a CSP that allows no
 * script. No token is logged: a link is named by its digest.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import type { Log } from '../../support/log.js';
import { APPROVAL_GRANT_MAX_MINUTES } from '../approval-question.js';
import { PAGE_CSP, renderEnded, renderQuestion, renderRefused, renderUnknown } from './page-html.js';
import { PAGE_CHOICES, digestOf, type PageAnswer, type PageChoice, type PageLinks } from './page-links.js';

/** The path every link starts with. */
export const APPROVE_PATH = '/approve/';

/** 4 KiB: the largest decision a POST may carry (a form of four short fields); past it, 413 and nothing changes. */
export const PAGE_BODY_MAX_BYTES = 4096;

export interface PageServing {
  readonly links: PageLinks;
  /** Hostnames Host and Origin may name. */
  readonly hostnames: readonly string[];
  /** The page's own origin as a browser sees it (`http://127.0.0.1:41234`, or approvalPageUrl's), which a POST's Origin may name. */
  readonly origin: () => string | undefined;
  /** The --instance-id that starts this server's links (`/approve/a.<token>`); none, no prefix. */
  readonly instance?: string;
  readonly log: Log;
  readonly now?: () => number;
  /** Told of each decision taken from the page. */
  readonly onDecided?: (digest: string) => void;
}

const HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': PAGE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  // Same-origin, not no-referrer: with no-referrer a browser sends a form's Origin as "null".
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** Whether `path` is the page's (a link, or the bare prefix). */
export function isPagePath(path: string): boolean {
  return path.startsWith(APPROVE_PATH);
}

/** Answers one request under APPROVE_PATH. */
export async function servePageRequest(req: IncomingMessage, res: ServerResponse, serving: PageServing): Promise<void> {
  const now = serving.now ?? Date.now;
  const host = validateHostHeader(req.headers.host, [...serving.hostnames]);
  if (!host.ok)
    return send(res, 403, renderRefused(`This page answers requests for ${serving.hostnames.join(', ')} only.`), true);
  const id = decodeSegment(new URL(req.url ?? '/', 'http://page').pathname.slice(APPROVE_PATH.length));
  const token = tokenOf(id, serving.instance);
  if (typeof token === 'object') return send(res, 404, renderRefused(token.misrouted), true);
  if (req.method === 'GET' || req.method === 'HEAD') {
    const origin = validateOriginHeader(req.headers.origin, [...serving.hostnames]);
    if (!origin.ok) return send(res, 403, renderRefused('A page of another site may not open this one.'), true);
    const state = token === undefined ? ({ kind: 'unknown' } as const) : serving.links.state(token);
    switch (state.kind) {
      case 'unknown':
        return send(res, 404, renderUnknown());
      case 'ended': {
        const next = serving.links.nextOpen(state.link);
        const path =
          next === undefined
            ? undefined
            : `${APPROVE_PATH}${serving.instance !== undefined ? `${serving.instance}.` : ''}${next}`;
        return send(res, 200, renderEnded(state.link, state.end, state.calls, now(), path));
      }
      case 'open':
        return send(res, 200, renderQuestion({ ...state, now: now() }));
    }
  }
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'GET, HEAD, POST');
    return send(
      res,
      405,
      renderRefused(`${req.method ?? 'This method'} is not how a decision is made: the page's buttons POST.`),
      true,
    );
  }
  const refusal = crossSite(req, serving);
  const digest = token === undefined ? 'unknown' : digestOf(token);
  if (refusal !== undefined) {
    serving.log(`codemode-mcp: approval page: refused a decision for link #${digest}: ${refusal}`, 'warn');
    return send(res, 403, renderRefused(`This decision did not come from this server's own page (${refusal}).`), true);
  }
  const form = await readForm(req);
  if (form === 'too-large') return send(res, 413, renderRefused('The form was larger than a decision can be.'), true);
  if (form === 'not-a-form') return send(res, 415, renderRefused("A decision comes as the page's form."), true);
  const answer = readAnswer(form);
  if (typeof answer === 'string') return send(res, 400, renderRefused(answer));
  if (token === undefined) return send(res, 404, renderUnknown());
  const decided = serving.links.decide(token, { formToken: form.get('form') ?? '', bound: form.get('bound') ?? '' }, answer);
  if (typeof decided === 'object') {
    serving.log(`codemode-mcp: approval page: link #${decided.digest} decided on the page: ${answer.choice}`, 'info');
    serving.onDecided?.(decided.digest);
    // Post/redirect/get: the link's own page now says what was decided, and a reload posts nothing again.
    res.writeHead(303, { ...HEADERS, Location: `${APPROVE_PATH}${encodeURIComponent(id)}`, 'Content-Length': 0 });
    res.end();
    return;
  }
  if (decided === 'unknown') return send(res, 404, renderUnknown());
  if (decided === 'ended') {
    const state = serving.links.state(token);
    return send(res, 409, state.kind === 'ended' ? renderEnded(state.link, state.end, state.calls, now()) : renderUnknown());
  }
  if (decided === 'bound') {
    // More calls joined the batch since the page was made: the person decides on what waits now.
    return send(
      res,
      409,
      renderRefused('More calls are waiting than the page you answered showed: reload it to see them all, then decide.'),
    );
  }
  serving.log(`codemode-mcp: approval page: refused a decision for link #${digest}: its form token is not the page's`, 'warn');
  return send(res, 403, renderRefused("This decision did not come from this link's own page."));
}

/** Why a POST is not from the page itself, or undefined: its Origin must be this page's, and the browser must not call it cross-site. */
function crossSite(req: IncomingMessage, serving: PageServing): string | undefined {
  const origin = req.headers.origin;
  if (origin === undefined || origin === '') return 'it carried no Origin';
  const checked = validateOriginHeader(origin, [...serving.hostnames]);
  if (!checked.ok || !URL.canParse(origin)) return `its Origin ${JSON.stringify(origin.slice(0, 100))} is not this server`;
  const named = new URL(origin);
  const own = serving.origin();
  if (named.host !== req.headers.host && named.origin !== own)
    return `its Origin ${JSON.stringify(named.origin)} is not this page's`;
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return `the browser said it came from a ${JSON.stringify(site)} page`;
  return undefined;
}

/** The link's token from its path segment; `misrouted` when it names another instance. Undefined: none at all. */
function tokenOf(id: string, instance: string | undefined): string | undefined | { misrouted: string } {
  const at = id.indexOf('.');
  if (at < 0) return id === '' || instance !== undefined ? undefined : id;
  const named = id.slice(0, at);
  if (named !== instance) {
    return {
      misrouted:
        `This link belongs to instance ${JSON.stringify(named.slice(0, 32))}${instance !== undefined ? `, and this is instance ${JSON.stringify(instance)}` : ''}: ` +
        'a proxy in front of several instances must send /approve/<instance>.… to that instance (docs/deploy.md), or the instance is gone.',
    };
  }
  return id.slice(at + 1);
}

function decodeSegment(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return '';
  }
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | 'too-large' | 'not-a-form'> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return 'not-a-form';
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > PAGE_BODY_MAX_BYTES) return 'too-large';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > PAGE_BODY_MAX_BYTES) return 'too-large';
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** The decision a form carries, or what is wrong with it. */
function readAnswer(form: URLSearchParams): PageAnswer | string {
  const choice = form.get('choice') ?? '';
  if (!(PAGE_CHOICES as readonly string[]).includes(choice)) return `"${choice.slice(0, 40)}" is not one of the page's answers.`;
  if (choice !== 'allow-owner') return { choice: choice as PageChoice };
  const minutes = Number(form.get('minutes'));
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > APPROVAL_GRANT_MAX_MINUTES) {
    return `Minutes must be a whole number from 1 to ${APPROVAL_GRANT_MAX_MINUTES}; go back and change it.`;
  }
  return { choice: 'allow-owner', minutes };
}

function send(res: ServerResponse, status: number, html: string, close = false): void {
  res.writeHead(status, {
    ...HEADERS,
    'Content-Length': Buffer.byteLength(html),
    ...(close ? { Connection: 'close' } : {}),
  });
  res.end(res.req.method === 'HEAD' ? undefined : html);
}
