/**
 * Why an upstream could not start, in words a user can act on: the reason (it exited, it timed
 * out, its sign-in was refused) and the last lines of its stderr.
 */
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { CodemodeError } from '../../support/errors.js';
import { quoteInput } from '../../support/echo.js';
import { needsSignIn } from '../auth/describe-auth-failure.js';
import type { UpstreamAuth } from '../auth/upstream-auth.js';
import { formatDelay } from './backoff.js';
import { messageWithCauses } from './error-text.js';
import { endedInProbe } from './revision.js';
import { describeRefusal, type SignInContext } from './sign-in-retry.js';
import type { UpstreamSpec } from '../spec.js';

/** What describing a start failure reads of the session's options. */
export interface StartFailureOptions {
  readonly startTimeoutMs: number;
  readonly auth?: UpstreamAuth;
}

/** Why an upstream could not start, in words; and whether only a new sign-in can change that (needsSignIn). */
export class UpstreamStartError extends CodemodeError {
  override readonly name = 'UpstreamStartError';
  readonly signInNeeded: boolean;

  constructor(
    spec: UpstreamSpec,
    error: unknown,
    stderrTail: readonly string[],
    options: StartFailureOptions,
    signIn: SignInContext | undefined,
  ) {
    super('UPSTREAM_START_FAILED', describeStartFailure(spec, error, stderrTail, options, signIn), { cause: error });
    this.signInNeeded =
      spec.transport !== 'stdio' && signIn !== undefined && needsSignIn(error, { spec, oauth: signIn.provider !== undefined });
  }
}

/**
 * `it exited during startup; its stderr last said: "npm error code SELF_SIGNED_CERT_IN_CHAIN" / "npm error A
 * complete log of this run ..."`: its last STDERR_TAIL_LINES lines, each quoted and cut at 200 characters.
 */
function describeStartFailure(
  spec: UpstreamSpec,
  error: unknown,
  stderrTail: readonly string[],
  options: StartFailureOptions,
  signIn: SignInContext | undefined,
): string {
  const reason = describeRefusal(error, spec, signIn, options.auth) ?? describeReason(spec, error, options.startTimeoutMs);
  if (stderrTail.length === 0) return reason;
  const said = stderrTail.map((line) => quoteInput(line.trim())).join(' / ');
  return `${reason}; its stderr last said: ${said}`;
}

function describeReason(spec: UpstreamSpec, error: unknown, startTimeoutMs: number): string {
  // NotConnected: our stdio transport refuses to send once its process is ending.
  if (error instanceof SdkError && (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected)) {
    return spec.transport === 'stdio' ? 'it exited during startup' : 'it closed the connection during startup';
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    return `it did not answer within ${formatDelay(startTimeoutMs)} (upstreamStartTimeoutMs)`;
  }
  // The revision probe (revision.ts) was the first request: what broke it is what broke the start.
  if (endedInProbe(spec, error)) return 'it exited during startup';
  if (error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed && error.cause instanceof Error) {
    return describeReason(spec, error.cause, startTimeoutMs);
  }
  return messageWithCauses(error);
}
