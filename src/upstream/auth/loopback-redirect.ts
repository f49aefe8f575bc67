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
  | { readonly kind: 'refused'; readonly error: string; readonly errorDescription?: string; readonly state?: string };

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

  private constructor(
    private readonly server: Server,
    /** Whether a `state` belongs to a sign-in of ours; others get a 400 and are not handed on. */
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

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'GET' || url.pathname !== REDIRECT_PATH) {
      page(response, 404, 'Not found', 'This is where codemode-mcp receives a sign-in; nothing else is here.');
      return;
    }
    const params = readParams(url.searchParams);
    if (
      params === undefined ||
      (params.state !== undefined && !this.knows(params.state)) ||
      (params.kind === 'code' && params.state === undefined)
    ) {
      page(
        response,
        400,
        'Unknown sign-in',
        'This sign-in is not one codemode-mcp is waiting for (it may have been started again since). Start it again.',
      );
      return;
    }
    const arrived = {
      params,
      respond: (ok: boolean, text: string) => page(response, ok ? 200 : 400, ok ? 'Signed in' : 'Sign-in failed', text),
    };
    if (this.waiting !== undefined) this.waiting(arrived);
    else if (this.held.length < HELD_REDIRECTS_MAX) this.held.push(arrived);
    else page(response, 409, 'Too many sign-ins', 'codemode-mcp already holds several sign-ins that came back. Start it again.');
  }
}

function readParams(query: URLSearchParams): RedirectParams | undefined {
  const state = query.get('state') ?? undefined;
  const error = query.get('error');
  if (error !== null) {
    const errorDescription = query.get('error_description') ?? undefined;
    return {
      kind: 'refused',
      error,
      ...(errorDescription !== undefined ? { errorDescription } : {}),
      ...(state !== undefined ? { state } : {}),
    };
  }
  const code = query.get('code');
  if (code === null || state === undefined) return undefined;
  const iss = query.get('iss') ?? undefined;
  return { kind: 'code', code, state, ...(iss !== undefined ? { iss } : {}) };
}

function page(response: ServerResponse, status: number, title: string, text: string): void {
  const escape = (value: string): string => value.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  response
    .writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
    .end(
      `<!doctype html><meta charset="utf-8"><title>codemode-mcp: ${escape(title)}</title><h1>${escape(title)}</h1><p>${escape(text)}</p>\n`,
    );
}
