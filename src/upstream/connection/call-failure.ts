/**
 * A sent request's failure, as the script reads it: the SDK's errors translated into ours
 * (refused, lost, too large, not an answer), anything else (the upstream's JSON-RPC error) as it came.
 */
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { ResultTooLargeError, ToolRefusedError, UpstreamAnswerError, UpstreamLostError } from '../../support/errors.js';
import { describeSize, faultOf } from '../transport/answer-check.js';
import { READ_LIMIT_RULE } from '../transport/read-limit.js';

/** How a session ended under a call in flight (UpstreamLostError's words). */
export type LostHow = ConstructorParameters<typeof UpstreamLostError>[2];

export interface FailedCall {
  /** The upstream's name in the config. */
  readonly server: string;
  /** The call as the script named it. */
  readonly scriptName: string;
  readonly signal: AbortSignal | undefined;
  /** How the session ended, if it has (lost, or closing); undefined while it is up. */
  readonly lost: LostHow | undefined;
}

/** The error to throw for a request that failed. */
export function translateCallFailure(error: unknown, call: FailedCall): unknown {
  const { server, scriptName, signal } = call;
  // The SDK rejects an aborted call with its own REQUEST_TIMEOUT error; the caller's reason says more.
  if (signal?.aborted) return signal.reason;
  if (error instanceof SdkError && error.code === SdkErrorCode.NotConnected) {
    return new ToolRefusedError('UPSTREAM_DOWN', scriptName, `upstream "${server}" had just gone away`);
  }
  if (call.lost !== undefined) return new UpstreamLostError(server, scriptName, call.lost);
  const fault = faultOf(error);
  if (fault?.kind === 'too_large') {
    return new ResultTooLargeError(
      server,
      scriptName,
      `its result came as a message of ${describeSize(fault)}, past the ${fault.limit} bytes read from an upstream (${READ_LIMIT_RULE})`,
    );
  }
  if (fault?.kind === 'invalid') return new UpstreamAnswerError(server, scriptName, fault.detail);
  return error;
}
