/**
 * The SDK's OAuthClientProvider for one remote upstream: what the SDK's auth() leaves to the
 * application. The SDK discovers the protected resource and its authorization server, registers
 * the client (dynamically, or by a Client ID Metadata Document when the server takes one), builds
 * the PKCE authorization URL with `resource` and the scope it chose, exchanges and refreshes
 * tokens, and picks the token endpoint's auth method. This class keeps what it hands over (the
 * client registration and the tokens in the sign-in file, the PKCE verifier per `state` in
 * memory), says what to do with an authorization URL, and renews a token before it expires.
 *
 * One class for both grants, not the SDK's ClientCredentialsProvider / PrivateKeyJwtProvider:
 * those keep tokens without their expiry, send only client_secret_basic's metadata, and print a
 * deprecation warning on stderr at each start unless given the authorization server's issuer,
 * which a config doesn't name. Their grant is `prepareTokenRequest` below, and their JWT signing
 * is the SDK's createPrivateKeyJwtAuth, used here.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import {
  auth,
  createPrivateKeyJwtAuth,
  isHttpsUrl,
  type AddClientAuthentication,
  type FetchLike,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { OAuthOptions } from '../../config/types.js';
import { CodemodeError } from '../../support/errors.js';
import { readClientKey } from './client-key.js';
import { REDIRECT_PATH, SIGN_IN_WAIT_MS } from './loopback-redirect.js';
import type { RefusalListener } from './refusals.js';
import type { KeptTokens, SignInFile } from './sign-in-file.js';

/**
 * A token that expires within this (1 min), or within half its lifetime when that is shorter, is
 * renewed before it is sent: refreshed, or fetched again for client_credentials.
 */
export const TOKEN_RENEW_MARGIN_MS = 60_000;

/** What an OAuth block left out means: the authorization code grant, registered dynamically. */
export const DEFAULT_OAUTH: OAuthOptions = { grant: 'authorization_code', secretWrittenInline: false };

export interface ProviderOptions {
  readonly serverUrl: string;
  readonly oauth: OAuthOptions;
  readonly file: SignInFile;
  /** For the renewals this class starts itself; the SDK passes its own to the rest. */
  readonly fetch: FetchLike;
  /** What to do with an authorization URL: open it, print it, or offer it to the MCP client. */
  readonly onAuthorizationUrl: (url: URL) => void | Promise<void>;
  /** `codemode-mcp login`: start without the stored tokens; the new ones replace them once issued. */
  readonly ignoreStoredTokens?: boolean;
}

/** Thrown where a token is needed and only a person signing in can provide one. */
export class SignInNeededError extends CodemodeError {
  override readonly name = 'SignInNeededError';

  constructor(why: string) {
    super('SIGN_IN_NEEDED', why);
  }
}

/**
 * Thrown instead of a new sign-in when the server refused, as `403 insufficient_scope`, a token
 * for scope that the sign-in it came from already asked for or was granted: signing in again for
 * the same scope can only be refused the same way, so none is started, and none is offered.
 */
export class ScopeRefusedError extends CodemodeError {
  override readonly name = 'ScopeRefusedError';

  constructor(
    /** The scope the server's challenge named; undefined when it named none. */
    readonly requiredScope: string | undefined,
    /** The scope the sign-in asked for or was granted. */
    readonly signedInScope: string | undefined,
  ) {
    super(
      'SCOPE_REFUSED',
      `it refused the sign-in's token for want of scope${requiredScope === undefined ? '' : ` "${requiredScope}"`}, which the sign-in already ` +
        `${signedInScope === undefined ? 'had' : `asked for ("${signedInScope}")`}, so signing in again for it can't help`,
    );
  }
}

export class UpstreamOAuthProvider implements OAuthClientProvider, RefusalListener {
  readonly clientMetadataUrl: string | undefined;
  readonly addClientAuthentication?: AddClientAuthentication;
  /** The port chosen by prepare() when neither the config nor the stored registration names one. */
  private chosenPort: number | undefined;
  private memoryTokens: KeptTokens | undefined;
  /** A configured client's registration with the issuer the SDK stamped on it. */
  private configuredClient: StoredOAuthClientInformation | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  /** The PKCE verifier of each sign-in started, by its `state`, with when it started and the scope it asked for. */
  private readonly verifiers = new Map<string, { verifier: string; at: number; scope?: string }>();
  private lastState: string | undefined;
  private currentVerifier: string | undefined;
  /** The scope the sign-in whose code is being exchanged asked for. */
  private currentScope: string | undefined;
  private renewing: Promise<void> | undefined;
  /** The scope the sign-in that gave the kept tokens asked for (its token answer may name less). */
  private askedScope: string | undefined;
  /** A `403 insufficient_scope` for scope the sign-in already had: the next sign-in the SDK starts is refused instead. */
  private finalRefusal: ScopeRefusedError | undefined;

  constructor(private readonly options: ProviderOptions) {
    const { oauth } = options;
    this.clientMetadataUrl = oauth.clientId !== undefined && isHttpsUrl(oauth.clientId) ? oauth.clientId : undefined;
    if (oauth.clientId !== undefined && this.clientMetadataUrl === undefined) {
      this.configuredClient = {
        client_id: oauth.clientId,
        ...(oauth.clientSecret !== undefined ? { client_secret: oauth.clientSecret } : {}),
      };
    }
    if (oauth.privateKeyFile !== undefined && oauth.clientId !== undefined) {
      const key = readClientKey(oauth.privateKeyFile);
      this.addClientAuthentication = createPrivateKeyJwtAuth({
        issuer: oauth.clientId,
        subject: oauth.clientId,
        privateKey: { ...key.jwk },
        alg: key.algorithm,
      });
    }
  }

  get interactive(): boolean {
    return this.options.oauth.grant === 'authorization_code';
  }

  /**
   * Picks the redirect port before the SDK asks for the redirect URL (a getter, so it can't wait):
   * the config's redirectPort, else the one the stored registration was made with, else a free one.
   */
  async prepare(): Promise<void> {
    if (!this.interactive || this.options.oauth.redirectPort !== undefined || this.storedRedirectPort() !== undefined) return;
    this.chosenPort ??= await findFreePort();
  }

  /** The loopback port the redirect comes back to; undefined for client_credentials. */
  get redirectPort(): number | undefined {
    if (!this.interactive) return undefined;
    const port = this.options.oauth.redirectPort ?? this.storedRedirectPort() ?? this.chosenPort;
    if (port === undefined) throw new Error('UpstreamOAuthProvider.prepare() must run before the redirect URL is read');
    return port;
  }

  get redirectUrl(): string | undefined {
    const port = this.redirectPort;
    return port === undefined ? undefined : `http://127.0.0.1:${port}${REDIRECT_PATH}`;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { oauth } = this.options;
    const redirect = this.redirectUrl;
    return {
      client_name: 'codemode-mcp',
      redirect_uris: redirect === undefined ? [] : [redirect],
      ...(oauth.scope !== undefined ? { scope: oauth.scope } : {}),
      ...(this.interactive ? {} : { grant_types: ['client_credentials'] }),
      ...(this.addClientAuthentication !== undefined ? { token_endpoint_auth_method: 'private_key_jwt' } : {}),
    };
  }

  state(): string {
    const state = randomBytes(16).toString('base64url');
    this.lastState = state;
    return state;
  }

  saveCodeVerifier(verifier: string): void {
    if (this.lastState === undefined) return;
    const now = Date.now();
    // A sign-in older than the wait for its redirect can't come back: its verifier goes.
    for (const [state, started] of this.verifiers) if (now - started.at > SIGN_IN_WAIT_MS) this.verifiers.delete(state);
    this.verifiers.set(this.lastState, { verifier, at: now });
  }

  /** Whether `state` names a sign-in started here and not yet finished. */
  knowsState(state: string): boolean {
    return this.verifiers.has(state);
  }

  /** Makes the verifier of the sign-in that `state` names the one the code exchange uses. */
  useState(state: string): void {
    const started = this.verifiers.get(state);
    if (started === undefined) throw new Error('the sign-in came back for a sign-in codemode-mcp did not start; start it again');
    this.verifiers.delete(state);
    this.currentVerifier = started.verifier;
    this.currentScope = started.scope;
  }

  codeVerifier(): string {
    if (this.currentVerifier === undefined) throw new Error('no sign-in is waiting for this authorization code');
    return this.currentVerifier;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    const final = this.finalRefusal;
    if (final !== undefined) {
      // The SDK's step-up would sign in again for what was just refused: a loop of sign-ins.
      this.finalRefusal = undefined;
      this.verifiers.delete(url.searchParams.get('state') ?? '');
      throw final;
    }
    const started = this.verifiers.get(url.searchParams.get('state') ?? '');
    const scope = url.searchParams.get('scope');
    if (started !== undefined && scope !== null) started.scope = scope;
    await this.options.onAuthorizationUrl(url);
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    if (this.configuredClient !== undefined) return this.configuredClient;
    const kept = this.options.file.read();
    // A registration made for another redirect URI would be refused at the token endpoint.
    if (kept.client === undefined || (this.interactive && kept.redirectUri !== this.redirectUrl)) return undefined;
    return kept.client;
  }

  saveClientInformation(client: StoredOAuthClientInformation): void {
    if (this.configuredClient !== undefined) {
      this.configuredClient = client;
      return;
    }
    const redirectUri = this.redirectUrl;
    this.options.file.update((kept) => ({ ...kept, client, ...(redirectUri !== undefined ? { redirectUri } : {}) }));
  }

  /**
   * The kept tokens. The transport's own read (no `ctx`, before every request) renews a token
   * that expires within TOKEN_RENEW_MARGIN_MS first, and throws SignInNeededError when only a
   * new sign-in can.
   */
  async tokens(ctx?: OAuthClientInformationContext): Promise<StoredOAuthTokens | undefined> {
    const kept = this.keptTokens();
    if (ctx !== undefined || kept === undefined || !expiresSoon(kept)) return kept;
    this.renewing ??= this.renew().finally(() => (this.renewing = undefined));
    await this.renewing;
    return this.keptTokens();
  }

  /**
   * A token answer without `scope` was granted the scope asked for, or, for a refresh, the scope it
   * had (RFC 6749 §5.1, §6): kept so, the SDK's step-up on `403 insufficient_scope` knows when the
   * scope the server names was granted already and signing in again for it can't help.
   */
  saveTokens(tokens: StoredOAuthTokens): void {
    const expiresAt = tokens.expires_in === undefined ? undefined : Date.now() + tokens.expires_in * 1000;
    const scope = tokens.scope ?? this.currentScope ?? this.keptTokens()?.scope;
    if (this.currentScope !== undefined) this.askedScope = this.currentScope;
    this.currentScope = undefined;
    this.finalRefusal = undefined;
    const kept: KeptTokens = {
      ...tokens,
      ...(scope !== undefined ? { scope } : {}),
      ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
    };
    // expires_in stays as sent: with expires_at it gives the lifetime, for expiresSoon.
    this.memoryTokens = kept;
    if (this.persists) this.options.file.update((signIn) => ({ ...signIn, tokens: kept }));
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (this.interactive) return undefined;
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) params.set('scope', scope);
    return params;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') {
      this.memoryTokens = undefined;
      if (this.persists && !this.options.ignoreStoredTokens) this.options.file.update(({ tokens: _dropped, ...rest }) => rest);
    }
    if (scope === 'all' || scope === 'client') {
      if (this.configuredClient !== undefined) this.configuredClient = { ...this.configuredClient, issuer: undefined };
      else this.options.file.update(({ client: _dropped, redirectUri: _alsoDropped, ...rest }) => rest);
    }
    if (scope === 'all' || scope === 'verifier') this.verifiers.clear();
    if (scope === 'all' || scope === 'discovery') {
      this.discovery = undefined;
      if (this.persists) this.options.file.update(({ discovery: _dropped, ...rest }) => rest);
    }
  }

  /**
   * A token was refused (401, auth/refusals.ts): the next sign-in finds the server's authorization
   * server afresh rather than from what was kept, since the server may have moved to another one
   * (SEP-2352); the registration and tokens the old one issued are then not used there (the SDK
   * checks the issuer stamped on them).
   */
  tokenRefused(): void {
    this.invalidateCredentials('discovery');
  }

  /**
   * A token was refused as `403 insufficient_scope` (auth/refusals.ts), before the SDK's step-up
   * sees it. When the sign-in already asked for, or was granted, every scope the server names (or
   * it names none), the refusal is final: the sign-in the step-up then starts is refused instead
   * (redirectToAuthorization), and whoever waits is told why.
   */
  scopeRefused(required: string | undefined): void {
    const granted = this.keptTokens()?.scope;
    const had = [granted, this.askedScope].filter((scope) => scope !== undefined).join(' ');
    const covered = required === undefined || scopesOf(required).every((scope) => scopesOf(had).includes(scope));
    this.finalRefusal = covered ? new ScopeRefusedError(required, this.askedScope ?? granted) : undefined;
  }

  /** Kept in the file too, so a later process can refresh from a server whose metadata only its 401 names. */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
    if (this.persists) this.options.file.update((signIn) => ({ ...signIn, discovery: state }));
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    if (this.discovery !== undefined || !this.persists || this.options.ignoreStoredTokens) return this.discovery;
    return this.options.file.read().discovery;
  }

  /** Tokens from a browser sign-in are kept on disk; client_credentials ones are fetched again at each start. */
  private get persists(): boolean {
    return this.interactive;
  }

  private keptTokens(): KeptTokens | undefined {
    if (!this.persists || this.options.ignoreStoredTokens) return this.memoryTokens;
    return this.options.file.read().tokens;
  }

  private storedRedirectPort(): number | undefined {
    const uri = this.options.file.read().redirectUri;
    return uri === undefined ? undefined : Number(new URL(uri).port);
  }

  /** The SDK's flow without a code: a refresh, or a new client_credentials token; a sign-in it would need throws. */
  private async renew(): Promise<void> {
    const result = await auth(this, { serverUrl: this.options.serverUrl, fetchFn: this.options.fetch });
    if (result !== 'AUTHORIZED') throw new SignInNeededError('its access token expired and could not be refreshed');
  }
}

/** The scopes of a `scope` value: space-separated (RFC 6749 §3.3). */
function scopesOf(scope: string): string[] {
  return scope.split(' ').filter((part) => part !== '');
}

/** Within TOKEN_RENEW_MARGIN_MS of its expiry, or within half its lifetime for a short-lived token. */
function expiresSoon(tokens: KeptTokens): boolean {
  if (tokens.expires_at === undefined) return false;
  const lifetime = (tokens.expires_in ?? Infinity) * 1000;
  return tokens.expires_at - Date.now() <= Math.min(TOKEN_RENEW_MARGIN_MS, lifetime / 2);
}

/** A port nothing listens on now, from the system. */
function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
