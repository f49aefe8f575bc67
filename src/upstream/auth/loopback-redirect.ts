/**
 * Receives the sign-in's redirect on a loopback port (RFC 8252): the browser comes back to
 * `http://127.0.0.1:<port>/callback?code=...&state=...`, and the page it gets says whether the
 * sign-in worked once the code has been exchanged.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** The path of the loopback redirect URI. */
export const REDIRECT_PATH = '/callback';

/** How long a started sign-in waits for its redirect (10 min); then it is given up, and says so. */
export const SIGN_IN_WAIT_MS = 10 * 60_000;

/** What came back: a code for a sign-in of ours, or the authorization server's refusal. */
export type RedirectParams =
  | { readonly kind: 'code'; readonly code: string; readonly state: string; readonly iss?: string }
  | { readonly kind: 'refused'; readonly error: string; readonly errorDescription?: string; readonly state: string };

export interface ArrivedRedirect {
  readonly params: RedirectParams;
  /** Answers the browser, once the outcome is known. */
  readonly respond: (ok: boolean, text: string) => void;
}

/** Redirects held while no one waits for one (the browser can be quicker than our code exchange is ready); past it, 409. */
export const HELD_REDIRECTS_MAX = 4;

export class LoopbackRedirect {
  private waiting: ((redirect: ArrivedRedirect) => void) | undefined;
  private readonly held: ArrivedRedirect[] = [];
  /** The states already handed on: a sign-in comes back once, and a replay of it is refused. */
  private readonly claimed = new Set<string>();

  private constructor(
    private readonly server: Server,
    /** Whether a `state` belongs to a sign-in of ours; a redirect without one that does is answered 400 and not handed on. */
    private readonly knows: (state: string) => boolean,
  ) {
    server.on('request', (request, response) => this.handle(request, response));
  }

  /** Listens on 127.0.0.1:`port`; a port in use rejects with a message that says what to do. */
  static listen(port: number, knows: (state: string) => boolean): Promise<LoopbackRedirect> {
    const server = createServer();
    return new Promise((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) => {
        reject(
          new Error(
            error.code === 'EADDRINUSE'
              ? `port ${port} on 127.0.0.1, where the sign-in comes back, is in use; close what holds it (another codemode-mcp login?) or set oauth.redirectPort`
              : `can't listen on 127.0.0.1:${port} for the sign-in's redirect (${error.message})`,
          ),
        );
      });
      server.listen(port, '127.0.0.1', () => resolve(new LoopbackRedirect(server, knows)));
    });
  }

  /** The next redirect for a sign-in of ours; rejects when `signal` aborts. */
  next(signal: AbortSignal): Promise<ArrivedRedirect> {
    signal.throwIfAborted();
    const held = this.held.shift();
    if (held !== undefined) return Promise.resolve(held);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.waiting = undefined;
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting = (redirect) => {
        signal.removeEventListener('abort', onAbort);
        this.waiting = undefined;
        resolve(redirect);
      };
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  /**
   * Hands on only a redirect that carries the exact `state` of a sign-in of ours, refusals
   * included (RFC 6749 §10.12): anything else on the port gets a page saying why, and the sign-in
   * goes on waiting.
   */
  private handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== REDIRECT_PATH) {
      page(
        response,
        404,
        'Not found',
        `This is where codemode-mcp receives a sign-in, at ${REDIRECT_PATH}; nothing else is here.`,
      );
      return;
    }
    if (request.method !== 'GET') {
      page(
        response,
        405,
        'Not a sign-in',
        `A sign-in comes back here as the browser's GET, not ${request.method}. ${STILL_WAITING}`,
        {
          allow: 'GET',
        },
      );
      return;
    }
    const read = readParams(url.searchParams);
    if ('problem' in read) {
      page(response, 400, 'Not a sign-in', `${read.problem}. ${STILL_WAITING}`);
      return;
    }
    const { params } = read;
    if (this.claimed.has(params.state)) {
      page(
        response,
        400,
        'Sign-in already back',
        `This sign-in came back once already; a repeat of it is ignored. ${STILL_WAITING}`,
      );
      return;
    }
    if (!this.knows(params.state)) {
      page(
        response,
        400,
        'Unknown sign-in',
        `This request's state is not that of a sign-in codemode-mcp is waiting for (it may have been started again since). ${STILL_WAITING}`,
      );
      return;
    }
    if (this.waiting === undefined && this.held.length >= HELD_REDIRECTS_MAX) {
      page(response, 409, 'Too many sign-ins', 'codemode-mcp already holds several sign-ins that came back. Start it again.');
      return;
    }
    this.claimed.add(params.state);
    const arrived = {
      params,
      respond: (ok: boolean, text: string) => page(response, ok ? 200 : 400, ok ? 'Signed in' : 'Sign-in failed', text),
    };
    if (this.waiting !== undefined) this.waiting(arrived);
    else this.held.push(arrived);
  }
}

/** Said on every page of a request that was not handed on. */
const STILL_WAITING =
  'codemode-mcp ignored it and is still waiting for the sign-in it started: finish that one in its own browser tab.';

/** The parameters of a redirect back (RFC 6749 §4.1.2), each at most once (§3.1), or why it is not one. */
function readParams(query: URLSearchParams): { readonly params: RedirectParams } | { readonly problem: string } {
  for (const name of ['state', 'code', 'error', 'error_description', 'iss']) {
    if (query.getAll(name).length > 1) return { problem: `This request carries ${name} more than once` };
  }
  const state = query.get('state');
  if (state === null || state === '')
    return { problem: "This request carries no state, so nothing shows it comes from codemode-mcp's sign-in" };
  const error = query.get('error');
  const code = query.get('code');
  if (error !== null && code !== null) return { problem: 'This request carries both a code and an error' };
  if (error !== null) {
    const errorDescription = query.get('error_description') ?? undefined;
    return {
      params: { kind: 'refused', error, state, ...(errorDescription !== undefined ? { errorDescription } : {}) },
    };
  }
  if (code === null || code === '') return { problem: 'This request carries neither a code nor an error' };
  const iss = query.get('iss') ?? undefined;
  return { params: { kind: 'code', code, state, ...(iss !== undefined ? { iss } : {}) } };
}

function page(response: ServerResponse, status: number, title: string, text: string, headers: Record<string, string> = {}): void {
  const escape = (value: string): string => value.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  response
    .writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers })
    .end(
      `<!doctype html><meta charset="utf-8"><title>codemode-mcp: ${escape(title)}</title><h1>${escape(title)}</h1><p>${escape(text)}</p>\n`,
    );
}
