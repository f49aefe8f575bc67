/**
 * Why a remote upstream could not be reached for want of authorization, in words that say what
 * to do: the status, what the server said (`error`, `error_description`), and the command or
 * config field that fixes it. Never a token.
 */
import {
  InsecureTokenEndpointError,
  InsufficientScopeError,
  IssuerMismatchError,
  OAuthError,
  RegistrationRejectedError,
  SdkErrorCode,
  SdkHttpError,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import type { RemoteUpstreamSpec } from '../spec.js';
import { ScopeRefusedError, SignInNeededError } from './oauth-provider.js';
import { describeRefusal, type Refusal } from './refusals.js';
import { cleartextSignInRefusal, signsInOverCleartext } from './cleartext-sign-in.js';

/** `codemode-mcp login github --config /abs/servers.json`, the path quoted when it needs it. */
export function loginCommand(spec: Pick<RemoteUpstreamSpec, 'name' | 'configFile'>, verb: 'login' | 'logout' = 'login'): string {
  const file =
    spec.configFile === undefined
      ? '<config file>'
      : /^[\w./~:@%+=,-]+$/.test(spec.configFile)
        ? spec.configFile
        : JSON.stringify(spec.configFile);
  return `codemode-mcp ${verb} ${spec.name} --config ${file}`;
}

export interface AuthFailureContext {
  readonly spec: RemoteUpstreamSpec;
  /** The last 401/403 the server answered, if any. */
  readonly refusal: Refusal | undefined;
  /** Whether codemode-mcp signs in itself (an OAuth provider is attached) or the entry's own headers carry the credential. */
  readonly oauth: boolean;
  /** Said after the login hint: the sign-in link was offered to the MCP client, or nothing. */
  readonly offered?: string;
}

/** A sentence for an authorization failure; undefined for any other error. */
export function describeAuthFailure(error: unknown, context: AuthFailureContext): string | undefined {
  const { spec, refusal } = context;
  const said = refusal === undefined ? '' : ` (it answered ${describeRefusal(refusal)})`;
  const interactive = (spec.oauth?.grant ?? 'authorization_code') === 'authorization_code';
  const signIn = `run: ${loginCommand(spec)}${context.offered === undefined ? '' : `, or ${context.offered}`}`;
  if (error instanceof SignInNeededError) return `${error.text}${said}; ${signIn}`;
  if (error instanceof ScopeRefusedError) {
    // Final: no sign-in was started or offered, and a login for the same account would be refused the same way.
    const wanted = error.requiredScope === undefined ? '' : ` scope "${cut(error.requiredScope)}"`;
    const asked = error.signedInScope === undefined ? 'had' : `asked for ("${cut(error.signedInScope)}")`;
    return (
      `it refused the token${said} for want of${wanted === '' ? ' more scope' : wanted}, which its sign-in already ${asked}: ` +
      `signing in again for it can't help, so codemode-mcp does not; the account may lack that access: ask the server's ` +
      `administrator, or sign in as another account (${loginCommand(spec)})`
    );
  }
  if (error instanceof UnauthorizedError && refusal?.status === 403 && refusal.error === 'insufficient_scope') {
    const wanted = refusal.scope === undefined ? 'the scope it names' : `"${cut(refusal.scope)}"`;
    return `it needs more access than the sign-in gave${said}; set "scope": ${wanted} in its entry's oauth, then ${signIn}`;
  }
  if (error instanceof UnauthorizedError && context.oauth && interactive) return `it needs you to sign in${said}; ${signIn}`;
  if (error instanceof OAuthError) {
    const what = `the authorization server refused ${interactive ? 'the sign-in' : 'its client credentials'} (${error.code}${error.message === '' ? '' : `: ${cut(error.message)}`})`;
    return interactive
      ? `${what}; ${signIn}`
      : `${what}; check oauth.clientId and oauth.${spec.oauth?.privateKeyFile !== undefined ? 'privateKeyFile' : 'clientSecret'} in its entry`;
  }
  if (error instanceof IssuerMismatchError && error.kind === 'metadata') {
    return `${error.message}: its authorization server's metadata names another issuer than the one it was found for, which a mix-up attack looks like, so codemode-mcp does not sign in there; ask the server's operator to fix its metadata`;
  }
  if (error instanceof InsecureTokenEndpointError) {
    return `its authorization server's token endpoint ${error.tokenEndpoint} is not https, so codemode-mcp sends it no credentials; ask the server's operator for an https one`;
  }
  if (error instanceof RegistrationRejectedError) {
    return `its authorization server refused to register codemode-mcp as a client (${error.status}: ${cut(error.body)}); register a client by hand and set oauth.clientId (and oauth.clientSecret) in its entry`;
  }
  if (error instanceof InsufficientScopeError) {
    return `it answered 403 insufficient_scope${error.requiredScope === undefined ? '' : ` (it wants scope "${cut(error.requiredScope)}")`}; ${signIn}`;
  }
  const refused = error instanceof UnauthorizedError || (error instanceof SdkHttpError && error.status === 401);
  if (refused && !context.oauth && spec.oauth === undefined && signsInOverCleartext(spec)) {
    return `it asks for a sign-in${said}, but ${cleartextSignInRefusal()}`;
  }
  if (!(error instanceof SdkHttpError) || (error.status !== 401 && error.status !== 403)) {
    return error instanceof UnauthorizedError ? `it refused the request as unauthorized${said}; ${signIn}` : undefined;
  }
  const status = refusal?.status === error.status ? describeRefusal(refusal) : `${error.status}`;
  if (!context.oauth) {
    return `it answered ${status} to the credential in its entry's "headers"; check that header's token, or remove it and let codemode-mcp sign in (${loginCommand(spec)})`;
  }
  if (error.code === SdkErrorCode.ClientHttpForbidden || refusal?.error === 'insufficient_scope') {
    return `it answered ${status} even after signing in again for more scope; the account may lack that access: ask the server's administrator, or sign in as another account (${loginCommand(spec)})`;
  }
  if (error.status === 401)
    return `it answered ${status} even to a fresh token; sign in again: ${loginCommand(spec, 'logout')}, then ${loginCommand(spec)}`;
  return `it answered ${status}; the account signed in may lack access to it: ask the server's administrator, or sign in as another account (${loginCommand(spec)})`;
}

/**
 * Whether only a person signing in can end this failure of an upstream codemode-mcp signs in to:
 * no sign-in kept, a refresh refused, a fresh token refused, or `403 insufficient_scope` after the
 * SDK's step-up or for scope the sign-in already had (the server said more scope won't do). Retried unchanged, it fails the same way,
 * or asks for one more sign-in after another.
 */
export function needsSignIn(error: unknown, context: Pick<AuthFailureContext, 'spec' | 'oauth'>): boolean {
  if (!context.oauth || (context.spec.oauth?.grant ?? 'authorization_code') !== 'authorization_code') return false;
  return (
    error instanceof SignInNeededError ||
    error instanceof ScopeRefusedError ||
    error instanceof UnauthorizedError ||
    error instanceof InsufficientScopeError ||
    error instanceof OAuthError ||
    (error instanceof SdkHttpError && (error.status === 401 || error.status === 403))
  );
}

function cut(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
