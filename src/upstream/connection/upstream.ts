/**
 * One configured upstream over its whole life: starts it, keeps its last tool list, restarts it
 * with backoff when it dies or fails to start, and re-lists its tools when it says they changed.
 */
import { Backoff, formatDelay, RESTART_STABLE_AFTER_MS } from './backoff.js';
import { NESTED_REFUSAL } from '../transport/environment.js';
import { Relist } from './relist.js';
import type { ResourceListing } from '../passthrough/resource-routes.js';
import type { UpstreamSpec } from '../spec.js';
import { UpstreamSession, type SessionOptions } from './session.js';
import { skipsProbeNext } from './revision.js';
import { UpstreamStartError } from './start-failure.js';
import { describeError } from '../../support/errors.js';
import { Logger } from '../../support/log.js';
import { offeredBy, type Offered, type PassthroughNotice } from '../passthrough/passthrough.js';
import type { ListedTool } from '../tools/tool-admission.js';

/**
 * connecting: first start, or restarting after it died (calls refused, UPSTREAM_CONNECTING);
 * ready: serving; down: the last attempt failed, another is scheduled (UPSTREAM_DOWN); closed.
 */
export type UpstreamState = 'connecting' | 'ready' | 'down' | 'closed';

/** Said of an upstream that waits for a sign-in: what brings it back. */
const AWAITING_SIGN_IN = 'no further attempt until it is signed in again';

export interface UpstreamStatus {
  readonly name: string;
  readonly state: UpstreamState;
  /** Why it is down or restarting. */
  readonly reason?: string;
  /** Tools from its last listing; undefined until it has listed once. */
  readonly toolCount?: number;
}

export interface UpstreamEvents {
  /** Its tool list (or its state) changed: the hub rebuilds the catalog. */
  readonly onChange: () => void;
  /** It said its prompts or resources changed, or a subscribed resource was updated. */
  readonly onNotice?: (notice: PassthroughNotice) => void;
}

export class Upstream {
  state: UpstreamState = 'connecting';
  reason: string | undefined;
  /** The last listing; kept while down, so a call to one of its tools is refused, not unknown. */
  tools: ListedTool[] | undefined;
  /** What it offered at its last start besides tools; kept while down, like its tools. */
  offered: Offered | undefined;
  /** Its resources and templates from the last listing; kept while down, as its tools are. */
  resources: ResourceListing | undefined;
  private session: UpstreamSession | undefined;
  private readonly backoff = new Backoff();
  private nextAttemptAt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private stableTimer: NodeJS.Timeout | undefined;
  private attempting: Promise<void> | undefined;
  private readonly aborter = new AbortController();
  private lastLoggedFailure: string | undefined;
  private closing: Promise<void> | undefined;
  /** False once the server began to shut down: a lost or failed upstream is no longer restarted. */
  private restarting = true;
  /** Set while it waits for a new sign-in, with no attempt scheduled: stops watching for one. */
  private stopAwaitingSignIn: (() => void) | undefined;
  /** A sign-in finished while an attempt was under way: that attempt's failure is retried, not waited on. */
  private signedInDuringAttempt = false;
  /** Its next start uses the 2025 handshake alone, without the revision probe (revision.ts: skipsProbeNext). */
  private unprobed = false;
  private readonly log: Logger;

  constructor(
    readonly spec: UpstreamSpec,
    private readonly options: Omit<SessionOptions, 'signal'>,
    private readonly events: UpstreamEvents,
  ) {
    this.log = Logger.of(options.log);
  }

  get name(): string {
    return this.spec.name;
  }

  /** Resolves once the first attempt is ready or failed; never rejects. */
  start(): Promise<void> {
    return this.attempt();
  }

  /** The live session, when ready. */
  readySession(): UpstreamSession | undefined {
    return this.state === 'ready' ? this.session : undefined;
  }

  /** `it exited; next attempt in 0.5 s`, for a refusal. */
  describeState(): string {
    const wait = Math.max(0, this.nextAttemptAt - Date.now());
    const next =
      this.retryTimer !== undefined
        ? `; next attempt in ${formatDelay(wait)}`
        : this.stopAwaitingSignIn !== undefined
          ? `; ${AWAITING_SIGN_IN}`
          : '';
    return `${this.reason ?? 'starting'}${next}`;
  }

  /**
   * For the description, when this upstream is not serving its tools: `github is down: <reason>`,
   * or `github is still starting`. None while it restarts with its tools known: that is brief, and
   * a note would change the description twice per restart.
   */
  note(): string | undefined {
    if (this.state === 'down') return `${this.name} is down: ${this.describeState()}`;
    if (this.state === 'connecting' && this.tools === undefined) return `${this.name} is still starting`;
    return undefined;
  }

  status(): UpstreamStatus {
    return {
      name: this.name,
      state: this.state,
      ...(this.reason !== undefined && this.state !== 'ready' ? { reason: this.reason } : {}),
      ...(this.tools !== undefined ? { toolCount: this.tools.length } : {}),
    };
  }

  /** After a sign-in: an upstream waiting to retry, or waiting for that sign-in, tries now. */
  retryNow(): void {
    if (this.state === 'closed' || !this.restarting) return;
    if (this.attempting !== undefined) {
      this.signedInDuringAttempt = true;
      return;
    }
    if (this.retryTimer === undefined && this.stopAwaitingSignIn === undefined) return;
    clearTimeout(this.retryTimer);
    void this.attempt();
  }

  async notifyRootsListChanged(): Promise<void> {
    await this.readySession()?.notifyRootsListChanged();
  }

  /**
   * The server is shutting down: from now on a lost or failed upstream stays down, and a restart
   * already scheduled is dropped. Its session serves on, so the scripts being stopped can still
   * cancel their calls; close() ends it.
   */
  stopRestarting(): void {
    this.restarting = false;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.stopAwaitingSignIn?.();
    this.stopAwaitingSignIn = undefined;
  }

  /** Stops restarting and closes the session (for stdio: the process is gone when this resolves). */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    this.stopRestarting();
    this.state = 'closed';
    this.aborter.abort(new Error(`upstream "${this.name}" is closing`));
    clearTimeout(this.stableTimer);
    const session = this.session;
    this.session = undefined;
    await Promise.all([session?.close(), this.attempting]);
  }

  private attempt(): Promise<void> {
    this.retryTimer = undefined;
    this.signedInDuringAttempt = false;
    this.stopAwaitingSignIn?.();
    this.stopAwaitingSignIn = undefined;
    this.attempting = this.connect().finally(() => (this.attempting = undefined));
    return this.attempting;
  }

  private async connect(): Promise<void> {
    let session: UpstreamSession;
    try {
      session = await UpstreamSession.open(this.spec, { ...this.options, signal: this.aborter.signal, unprobed: this.unprobed });
    } catch (error) {
      if (this.state === 'closed') return;
      this.noteProbe(error instanceof UpstreamStartError ? error.cause : error);
      const reason = describeError(error);
      if (error instanceof UpstreamStartError && error.signInNeeded) this.awaitSignIn(reason);
      else this.fail(reason);
      return;
    }
    if (this.state === 'closed') {
      await session.close();
      return;
    }
    const recovered = this.reason !== undefined;
    this.session = session;
    this.tools = session.tools;
    this.offered = offeredBy(session.capabilities);
    this.resources = session.resources;
    this.state = 'ready';
    this.reason = undefined;
    this.lastLoggedFailure = undefined;
    session.onLost = (unanswered) => this.handleLost(session, unanswered);
    const tools = new Relist(() => this.relist(session, 'tools'));
    const resources = new Relist(() => this.relist(session, 'resources'));
    session.onToolsChanged = () => tools.request();
    session.onResourcesChanged = () => resources.request();
    session.onPassthroughNotice = (notice) => this.events.onNotice?.(notice);
    this.stableTimer = setTimeout(() => this.backoff.reset(), RESTART_STABLE_AFTER_MS).unref();
    const how = recovered ? 'is up again' : `connected over ${session.kind}`;
    this.log.info(`upstream "${this.name}" ${how}: ${session.tools.length} tools`);
    this.events.onChange();
    if (session.isLost) this.handleLost(session);
  }

  /** After a failed start: whether the next one probes (revision.ts), said in the log when that changes. */
  private noteProbe(error: unknown): void {
    const unprobed = skipsProbeNext(this.spec, this.unprobed, error);
    if (unprobed !== this.unprobed) {
      this.log.debug(
        unprobed
          ? `upstream "${this.name}" ended while asked server/discover (the 2026-07-28 revision's first request): its next start uses the 2025 handshake alone`
          : `upstream "${this.name}" failed to start with the 2025 handshake alone: its next start asks server/discover again`,
      );
    }
    this.unprobed = unprobed;
  }

  private fail(reason: string): void {
    this.state = 'down';
    this.reason = reason;
    if (!this.restarting) return this.stayDown('failed to start', reason);
    if (reason.includes(NESTED_REFUSAL)) {
      // Another try would start another copy of codemode-mcp, to be refused the same way.
      this.log.warn(
        `upstream "${this.name}" is codemode-mcp itself, and refused to start under us: not tried again; remove it from the config`,
      );
      this.events.onChange();
      return;
    }
    const delay = this.scheduleRetry();
    if (reason !== this.lastLoggedFailure) {
      this.lastLoggedFailure = reason;
      // The delay as scheduled, not the time left: a pause between the two lines must not change the log.
      this.log.warn(`upstream "${this.name}" failed to start: ${reason}; next attempt in ${formatDelay(delay)}`);
    }
    this.events.onChange();
  }

  /**
   * Only a person signing in can bring it up (needsSignIn): down, saying so, with no attempt
   * scheduled until its sign-in file is written (a `login`) or a sign-in offered to the client is done.
   */
  private awaitSignIn(reason: string): void {
    const auth = this.options.auth;
    if (auth === undefined || this.spec.transport === 'stdio' || this.signedInDuringAttempt || !this.restarting) {
      this.fail(reason);
      return;
    }
    this.state = 'down';
    this.reason = `sign-in needed: ${reason}`;
    this.stopAwaitingSignIn = auth.watchSignIn(this.spec, () => this.retryNow());
    if (this.reason !== this.lastLoggedFailure) {
      this.lastLoggedFailure = this.reason;
      this.log.warn(`upstream "${this.name}" failed to start: ${this.reason}; ${AWAITING_SIGN_IN}`);
    }
    this.events.onChange();
  }

  /** It exited or disconnected (restarting: `connecting`), or stopped answering pings (`down`, with why). */
  private handleLost(session: UpstreamSession, unanswered?: string): void {
    if (session !== this.session || this.state === 'closed') return;
    this.session = undefined;
    clearTimeout(this.stableTimer);
    if (!this.restarting) {
      this.state = 'down';
      this.reason = unanswered ?? `it ${session.kind === 'stdio' ? 'exited' : 'disconnected'}`;
      return this.stayDown('was lost', this.reason);
    }
    if (unanswered !== undefined) {
      this.state = 'down';
      this.reason = unanswered;
      this.lastLoggedFailure = unanswered;
      const delay = this.scheduleRetry();
      this.log.warn(`upstream "${this.name}" is down: ${unanswered}; reconnecting in ${formatDelay(delay)}`);
      this.events.onChange();
      return;
    }
    const how = session.kind === 'stdio' ? 'exited' : 'disconnected';
    this.state = 'connecting';
    this.reason = `it ${how}`;
    const delay = this.scheduleRetry();
    this.log.warn(`upstream "${this.name}" ${how}; restarting in ${formatDelay(delay)}`);
    this.events.onChange();
  }

  /** During shutdown: one log line, and no restart (a process started now would only be killed). */
  private stayDown(what: string, reason: string): void {
    this.log.info(`upstream "${this.name}" ${what} during shutdown (${reason}); not restarted`);
    this.events.onChange();
  }

  private scheduleRetry(): number {
    const delay = this.backoff.next();
    this.nextAttemptAt = Date.now() + delay;
    this.retryTimer = setTimeout(() => void this.attempt(), delay).unref();
    return delay;
  }

  /**
   * After a `list_changed`: lists `what` again and keeps the list if the session is still ours; a
   * failure keeps the last list and is logged.
   */
  private async relist(session: UpstreamSession, what: 'tools' | 'resources'): Promise<void> {
    try {
      if (what === 'tools') {
        const tools = await session.listTools();
        if (session !== this.session) return;
        session.tools = this.tools = tools;
      } else {
        const resources = await session.listResources();
        if (session !== this.session) return;
        session.resources = this.resources = resources;
      }
      this.events.onChange();
    } catch (error) {
      if (session !== this.session) return;
      this.log.warn(`upstream "${this.name}" said its ${what} changed, but listing them failed: ${String(error)}`);
    }
  }
}
