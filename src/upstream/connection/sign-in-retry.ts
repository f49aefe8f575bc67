/**
 * A remote upstream's authorization failures on a call: what they mean in words, and the one
 * retry after a sign-in offered to the client finishes. A sign-in that no longer holds is reported
 * to the session (`onSignInLost`), which then reconnects with backoff.
 */
import { ToolRefusedError } from '../../support/errors.js';
import { settleWithin } from '../../support/settle.js';
import { describeAuthFailure } from '../auth/describe-auth-failure.js';
import { SignInNeededError, type UpstreamOAuthProvider } from '../auth/oauth-provider.js';
import { RefusalNotes } from '../auth/refusals.js';
import type { UpstreamAuth } from '../auth/upstream-auth.js';
import type { UpstreamSpec } from '../spec.js';
import { remoteFetch } from '../transport/connect-upstream.js';
import type { Log } from '../../support/log.js';

/** A remote upstream's sign-in for one connection: its provider (none when the entry's headers carry the credential) and what it refused. */
export interface SignInContext {
  readonly provider: UpstreamOAuthProvider | undefined;
  readonly refusals: RefusalNotes;
}

/** The sign-in a connection to `spec` opens with; none for stdio. */
export async function prepareSignIn(
  spec: UpstreamSpec,
  options: { readonly auth?: UpstreamAuth; readonly maxMessageBytes: number; readonly log: Log },
): Promise<SignInContext | undefined> {
  if (spec.transport === 'stdio') return undefined;
  const provider = options.auth?.providerFor(spec, remoteFetch(spec, options));
  await provider?.prepare();
  return { provider, refusals: new RefusalNotes(provider) };
}

/** What an authorization failure of this upstream means, in words; undefined for any other error (and for stdio). */
export function describeRefusal(
  error: unknown,
  spec: UpstreamSpec,
  signIn: SignInContext | undefined,
  auth: UpstreamAuth | undefined,
): string | undefined {
  if (spec.transport === 'stdio' || signIn === undefined) return undefined;
  const offered = auth?.offerNote(spec.name);
  return describeAuthFailure(error, {
    spec,
    refusal: signIn.refusals.last,
    oauth: signIn.provider !== undefined,
    ...(offered === undefined ? {} : { offered }),
  });
}

export interface SignInRetry {
  readonly spec: UpstreamSpec;
  readonly signIn: SignInContext | undefined;
  readonly auth: UpstreamAuth | undefined;
  /** The call as the script named it, for the refusal. */
  readonly scriptName: string;
  readonly signal: AbortSignal | undefined;
  /** Its sign-in no longer holds (revoked, expired past renewal): why, in words. */
  readonly onSignInLost: (reason: string) => void;
}

/**
 * Sends, and once more after a sign-in the client was offered; an authorization failure is a
 * refusal (UPSTREAM_UNAUTHORIZED), any other failure is thrown as it came.
 */
export async function sendWithSignInRetry<T>(send: () => Promise<T>, retry: SignInRetry): Promise<T> {
  const { spec, signIn, auth, scriptName, signal } = retry;
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      const refusal = describeRefusal(error, spec, signIn, auth);
      if (refusal === undefined) throw error;
      // A sign-in offered to the client (a first one, or more scope for this tool) may still come:
      // the call was refused unread, so once signed in it is sent once more.
      const pending = auth?.pendingSignIn(spec.name);
      if (pending !== undefined && attempt === 1 && (await signedIn(pending, signal))) continue;
      if (signal?.aborted) throw signal.reason;
      if (error instanceof SignInNeededError || signIn?.refusals.last?.status === 401) retry.onSignInLost(refusal);
      throw new ToolRefusedError(
        'UPSTREAM_UNAUTHORIZED',
        scriptName,
        `upstream "${spec.name}" ${refusal}`,
        'The upstream refused it unread',
      );
    }
  }
}

/** True once the pending sign-in succeeded; false when it failed or `signal` aborted first. */
async function signedIn(pending: Promise<void>, signal: AbortSignal | undefined): Promise<boolean> {
  const outcome = await settleWithin(pending, signal !== undefined ? { signal } : {});
  if (outcome !== 'settled') return false;
  return pending.then(
    () => true,
    () => false,
  );
}
