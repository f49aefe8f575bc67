/**
 * The MCP sessions of an HTTP server, by id. Each is a world of its own: its own SDK transport
 * and Server (ClientSession), its own scripts, relays, progress and logging. A session ends on
 * DELETE, when idle past httpSessionIdleMs, or at shutdown; its running scripts are stopped and
 * how each ended is logged.
 */
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport, type RequestId } from '@modelcontextprotocol/server';
import { SETTINGS, formatSettingValue } from '../config/settings.js';
import { ClientSession } from '../mcp/client-session.js';
import type { SessionlessOptions } from '../mcp/sessionless.js';
import { httpRefusal, type HttpRefusal } from './refusal.js';
import { SHARED_PRINCIPAL } from '../state/state-store.js';

/** What every HTTP client is served with, 2025 sessions and 2026-07-28 callers alike. */
export type HttpSessionsOptions = SessionlessOptions;

export class HttpSession {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly client: ClientSession;
  /** HTTP exchanges of this session still open (a POST's stream, the GET stream). */
  private exchanges = 0;
  private getStreams = 0;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly id: string,
    /** The principal of the bearer token that opened it (tokens-file.ts); undefined without a tokens file. */
    readonly principal: string | undefined,
    private readonly options: HttpSessionsOptions,
    private readonly onIdle: () => void,
    onEnd: (why: string) => void,
  ) {
    this.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      // DELETE answers once the session's scripts have stopped.
      onsessionclosed: () => onEnd('the client ended it with DELETE'),
    });
    this.client = new ClientSession({
      hub: options.hub,
      supply: () => options.supply,
      settings: options.settings,
      version: options.version,
      startup: options.startup,
      log: options.log,
      revision: '2025',
      sole: false,
      label: `session ${id}`,
      streamOpen: () => this.getStreams > 0,
      apis: options.apis,
      listing: options.listing,
      // A principal keeps its state across its sessions: one the tokens file names, or the shared one.
      principal: principal ?? SHARED_PRINCIPAL,
      ...(options.skills !== undefined ? { skills: options.skills } : {}),
      ...(options.instanceId !== undefined ? { instance: options.instanceId } : {}),
      ...(options.approvalPage !== undefined ? { approvalPage: options.approvalPage } : {}),
    });
  }

  /** An HTTP exchange of this session begins: the idle clock stops until every exchange has ended. */
  begin(): () => void {
    this.exchanges += 1;
    clearTimeout(this.idleTimer);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.exchanges -= 1;
      if (this.exchanges === 0) this.idleFromNow();
    };
  }

  /** The client's GET stream opened; the returned function marks it closed. */
  streamOpened(): () => void {
    this.getStreams += 1;
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      this.getStreams -= 1;
    };
  }

  stopClock(): void {
    clearTimeout(this.idleTimer);
  }

  private idleFromNow(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(this.onIdle, this.options.settings.httpSessionIdleMs);
    this.idleTimer.unref();
  }
}

/** 5 s: the Retry-After of a refusal at maxHttpSessions, a pause before the client's next try rather than a promise of room. */
export const SESSIONS_FULL_RETRY_AFTER_S = 5;

export class HttpSessions {
  private readonly byId = new Map<string, HttpSession>();
  private readonly ending = new Map<string, Promise<void>>();

  constructor(private readonly options: HttpSessionsOptions) {}

  get size(): number {
    return this.byId.size;
  }

  get(id: string): HttpSession | undefined {
    return this.byId.get(id);
  }

  /** Whether an id could have been made by this instance (its prefix), for a 404 that says where it belongs. */
  ownsId(id: string): boolean {
    const { instanceId } = this.options;
    return instanceId === undefined ? !id.includes('.') : id.startsWith(`${instanceId}.`);
  }

  /**
   * The answer to an `initialize` (with `id`) when maxHttpSessions are open, or undefined when there
   * is room. A place opens when a session ends: DELETE, the idle end, or its connection closing.
   */
  refuseWhenFull(id: RequestId | undefined): HttpRefusal | undefined {
    const max = this.options.settings.maxHttpSessions;
    if (this.byId.size < max) return undefined;
    const idle = formatSettingValue(SETTINGS.httpSessionIdleMs, this.options.settings.httpSessionIdleMs);
    return httpRefusal(
      503,
      `Service Unavailable: ${this.byId.size} sessions are open, the most this server keeps (maxHttpSessions, ` +
        `--${SETTINGS.maxHttpSessions.flag}); end a session you no longer use with DELETE, wait for one idle ${idle} ` +
        `to end (httpSessionIdleMs), or raise the cap`,
      { 'Retry-After': String(SESSIONS_FULL_RETRY_AFTER_S) },
      -32000,
      id,
    );
  }

  /**
   * A session for an `initialize` with no session id, opened by `principal` (its bearer token's, or
   * undefined); it is known by its id once that initialize goes through.
   */
  async open(principal: string | undefined): Promise<HttpSession> {
    const id = this.options.instanceId === undefined ? randomUUID() : `${this.options.instanceId}.${randomUUID()}`;
    const session = new HttpSession(
      id,
      principal,
      this.options,
      () =>
        void this.end(
          id,
          `idle for ${formatSettingValue(SETTINGS.httpSessionIdleMs, this.options.settings.httpSessionIdleMs)} (httpSessionIdleMs)`,
        ),
      (why) => void this.end(id, why),
    );
    this.byId.set(id, session);
    await session.client.connect(session.transport, () => void this.end(id, 'its connection closed'));
    return session;
  }

  /** Ends a session: its scripts stop (each ending logged), its transport closes; resolves when done. */
  end(id: string, why: string): Promise<void> {
    const session = this.byId.get(id);
    if (session === undefined) return this.ending.get(id) ?? Promise.resolve();
    this.byId.delete(id);
    session.stopClock();
    const ending = (async () => {
      const stopped = await session.client.close();
      this.options.log(
        `codemode-mcp: session ${id} ended (${why})${stopped.length > 0 ? `; its running scripts: ${stopped.join(', ')}` : ''}`,
      );
    })().finally(() => this.ending.delete(id));
    this.ending.set(id, ending);
    return ending;
  }

  /** Ends every session, for shutdown. */
  async endAll(why: string): Promise<void> {
    await Promise.all([...this.byId.keys()].map((id) => this.end(id, why)));
  }
}
