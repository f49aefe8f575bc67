/**
 * Sign-ins for a server's remote upstreams while it runs: one OAuth provider per upstream, kept
 * across its reconnections; and, when an upstream needs a person to sign in and the MCP client
 * takes URL-mode elicitation, the sign-in link offered through it, its redirect received on the
 * loopback port, and the upstream told to reconnect at once when it is signed in. Without such a
 * client the upstream stays down with the `codemode-mcp login` hint.
 */
import { randomBytes } from 'node:crypto';
import { statSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import { ProtocolError, type FetchLike } from '@modelcontextprotocol/client';
import type { RequestRelay } from '../routing/relay.js';
import type { RemoteUpstreamSpec } from '../spec.js';
import { authDirectory } from './auth-directory.js';
import { signsInOverCleartext } from './cleartext-sign-in.js';
import { loginCommand } from './describe-auth-failure.js';
import { finishSignIn } from './finish-sign-in.js';
import { LoopbackRedirect, SIGN_IN_WAIT_MS } from './loopback-redirect.js';
import { DEFAULT_OAUTH, UpstreamOAuthProvider } from './oauth-provider.js';
import { SignInFile } from './sign-in-file.js';
import { Logger, type Log } from '../../support/log.js';
import { timeoutSignal } from '../../support/timeout-signal.js';

export interface UpstreamAuthOptions {
  /** Who answers elicitation: the hub's relay to its client. */
  readonly relay: () => RequestRelay | undefined;
  readonly log: Log;
  /** Where sign-ins are kept. Default: authDirectory(). */
  readonly directory?: string;
}

/**
 * 10 s: after a sign-in through an offer, no new offer for that upstream for this long. A connection
 * attempt that began before the person finished (the upstream retries while it is down) comes back
 * 401 just after; without this it would ask the person to sign in a second time.
 */
export const SIGN_IN_SETTLE_MS = 10_000;

/**
 * 1 s: how often the sign-in file of an upstream waiting for a sign-in is looked at; a new
 * `codemode-mcp login` written there makes it try again within this.
 */
export const SIGN_IN_POLL_MS = 1_000;

interface Offer {
  /** Settles when the upstream is signed in; rejects when the offer was declined, failed or timed out. */
  done: Promise<void>;
  /** The client took the link: a person is signing in. */
  accepted: boolean;
}

export class UpstreamAuth {
  private readonly providers = new Map<string, UpstreamOAuthProvider>();
  private readonly offers = new Map<string, Offer>();
  /** Upstreams whose offer the client declined or could not take: not offered again in this process. */
  private readonly notOffered = new Set<string>();
  private readonly signedInListeners = new Set<(name: string) => void>();
  /** When each upstream last signed in through an offer (SIGN_IN_SETTLE_MS). */
  private readonly signedInAt = new Map<string, number>();
  private readonly aborter = new AbortController();
  private readonly warned = new Set<string>();

  private readonly log: Logger;

  constructor(private readonly options: UpstreamAuthOptions) {
    this.log = Logger.of(options.log);
  }

  /**
   * The upstream's OAuth provider, made at its first connection; undefined when its entry carries
   * its own Authorization header and no `oauth`, since that header is then the credential.
   * Undefined too over plain http to another machine, unless the entry allows it: no token goes
   * there (the config refuses an `oauth` block there; this covers a server that asks unbidden).
   * Throws when the entry's private key can't be read.
   */
  providerFor(spec: RemoteUpstreamSpec, fetch: FetchLike): UpstreamOAuthProvider | undefined {
    if (spec.oauth === undefined && Object.keys(spec.headers).some((header) => header.toLowerCase() === 'authorization'))
      return undefined;
    if (signsInOverCleartext(spec)) return undefined;
    let provider = this.providers.get(spec.name);
    if (provider !== undefined) return provider;
    if (spec.oauth?.secretWrittenInline === true && !this.warned.has(spec.name)) {
      this.warned.add(spec.name);
      this.log.warn(inlineSecretWarning(spec));
    }
    provider = new UpstreamOAuthProvider({
      serverUrl: spec.url,
      oauth: spec.oauth ?? DEFAULT_OAUTH,
      file: new SignInFile(this.options.directory ?? authDirectory(), spec.url),
      fetch,
      onAuthorizationUrl: (url) => this.offer(spec, provider!, url, fetch),
    });
    this.providers.set(spec.name, provider);
    return provider;
  }

  /** The sign-in offered for this upstream and not yet settled, if any. */
  pendingSignIn(name: string): Promise<void> | undefined {
    return this.offers.get(name)?.done;
  }

  /** For the down reason while a person signs in through a link their MCP client took. */
  offerNote(name: string): string | undefined {
    return this.offers.get(name)?.accepted === true ? 'finish signing in through the link your MCP client opened' : undefined;
  }

  /** Called with the upstream's name once it has signed in through an offer; returns an unsubscribe. */
  onSignedIn(listener: (name: string) => void): () => void {
    this.signedInListeners.add(listener);
    return () => this.signedInListeners.delete(listener);
  }

  /**
   * Calls `listener` once the upstream's sign-in file is written after this call (a `login` in
   * another process, or a sign-in through an offer); returns a stop.
   */
  watchSignIn(spec: RemoteUpstreamSpec, listener: () => void): () => void {
    const path = new SignInFile(this.options.directory ?? authDirectory(), spec.url).path;
    // A write before the watch began is not a new sign-in.
    const baseline = statMtime(path);
    const onStat = (current: Stats): void => {
      if (current.mtimeMs !== baseline) listener();
    };
    watchFile(path, { interval: SIGN_IN_POLL_MS, persistent: false }, onStat);
    return () => unwatchFile(path, onStat);
  }

  /** Gives up every offer and stops listening for redirects. */
  close(): void {
    this.aborter.abort(new Error('codemode-mcp is shutting down'));
  }

  /**
   * The SDK's redirectToAuthorization at run time: listens for the redirect and offers the link,
   * without waiting for the person (the SDK waits for this before it fails the request).
   */
  private offer(spec: RemoteUpstreamSpec, provider: UpstreamOAuthProvider, url: URL, fetch: FetchLike): void {
    const relay = this.options.relay();
    if (relay === undefined || this.offers.has(spec.name) || this.notOffered.has(spec.name) || this.aborter.signal.aborted)
      return;
    if (Date.now() - (this.signedInAt.get(spec.name) ?? -Infinity) < SIGN_IN_SETTLE_MS) return;
    const signal = AbortSignal.any([this.aborter.signal, timeoutSignal(SIGN_IN_WAIT_MS)]);
    const offer: Offer = { done: Promise.resolve(), accepted: false };
    const done = (async () => {
      const receiver = await LoopbackRedirect.listen(provider.redirectPort!, (state) => provider.knowsState(state));
      try {
        await this.askClient(spec, relay, url, signal);
        offer.accepted = true;
        await finishSignIn(provider, receiver, { name: spec.name, serverUrl: spec.url, fetch }, signal);
      } finally {
        await receiver.close();
      }
    })();
    // Set before anything is awaited, so a second request failing meanwhile makes no second offer.
    offer.done = done;
    this.offers.set(spec.name, offer);
    done
      .then(
        () => {
          this.signedInAt.set(spec.name, Date.now());
          this.log.child(`upstream "${spec.name}"`).info('signed in; reconnecting');
          for (const listener of this.signedInListeners) listener(spec.name);
        },
        (error: Error) => {
          if (!this.aborter.signal.aborted) this.log.child(`upstream "${spec.name}"`).warn(`no sign-in: ${error.message}`);
        },
      )
      .finally(() => this.offers.delete(spec.name));
  }

  /** Offers the link by URL-mode elicitation; throws unless the person accepted it. */
  private async askClient(spec: RemoteUpstreamSpec, relay: RequestRelay, url: URL, signal: AbortSignal): Promise<void> {
    let answer;
    try {
      answer = await relay(
        spec.name,
        {
          method: 'elicitation/create',
          params: {
            mode: 'url',
            message: `Sign in to "${spec.name}" (${new URL(spec.url).host}) so that codemode-mcp can reach its tools.`,
            url: url.href,
            elicitationId: randomBytes(12).toString('base64url'),
          },
        },
        { signal },
      );
    } catch (error) {
      // A client without URL-mode elicitation says so as a JSON-RPC error: the login hint stands alone.
      this.notOffered.add(spec.name);
      throw new Error(
        error instanceof ProtocolError ? error.message : `the MCP client did not take the sign-in link (${String(error)})`,
        { cause: error },
      );
    }
    if (answer.action !== 'accept') {
      this.notOffered.add(spec.name);
      throw new Error(
        `the sign-in link was ${answer.action === 'decline' ? 'declined' : 'cancelled'} in the MCP client; run: ${loginCommand(spec)}`,
      );
    }
  }
}

/** The warning for a client secret written into the config file itself (a line of the log, after its prefix). */
export function inlineSecretWarning(spec: Pick<RemoteUpstreamSpec, 'name'>): string {
  const variable = `${spec.name.toUpperCase().replace(/-/g, '_')}_CLIENT_SECRET`;
  return (
    `warning: upstream "${spec.name}" has its oauth.clientSecret written in the config file; ` +
    `keep secrets out of files others may read: set ${variable} in the environment and write "clientSecret": "\${${variable}}"`
  );
}

/** The file's modification time; 0 when it doesn't exist, as fs.watchFile reports a missing file. */
function statMtime(path: string): number {
  return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;
}
