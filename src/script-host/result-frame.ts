import { RESULT_MAX_DEPTH, resultMaxBytes, type ResultMessage } from '../../protocol/contract.js';
import { depthOf } from '../../common/json-depth.js';
import { RefusedError, ResultTooLargeError } from '../support/errors.js';
import type { ToolResult } from './types.js';

export interface ResultFrame {
  readonly message: ResultMessage;
  /** The result as JSON text, written into the frame as UTF-8 (protocol/frames.ts). */
  readonly payload?: string;
}

/** What the script gets for a call's outcome: the result as JSON, or the error to throw. */
export function resultFrame(
  id: number,
  outcome: { result: unknown } | { error: unknown },
  memoryMaxBytes: number,
  failure: (error: unknown) => unknown = failureResult,
): ResultFrame {
  if ('error' in outcome) {
    if (outcome.error instanceof RefusedError) {
      return { message: { t: 'result', id, kind: 'refused', message: outcome.error.message } };
    }
    // Too large to read off the upstream's connection, which stayed up: the call took effect.
    if (outcome.error instanceof ResultTooLargeError) return tooLarge(id, outcome.error.why);
    return okFrame(id, failure(outcome.error));
  }
  const depth = depthOf(outcome.result, RESULT_MAX_DEPTH);
  if (depth > RESULT_MAX_DEPTH) {
    return tooLarge(id, `its result is nested deeper than ${RESULT_MAX_DEPTH} levels`);
  }
  const json = JSON.stringify(outcome.result);
  const bytes = Buffer.byteLength(json, 'utf8');
  const max = resultMaxBytes(memoryMaxBytes);
  if (bytes > max) {
    return tooLarge(id, `its result is ${bytes} bytes of JSON, past the cap of ${max} (a third of the script's memory)`);
  }
  return { message: { t: 'result', id, kind: 'ok' }, payload: json };
}

function okFrame(id: number, result: unknown): ResultFrame {
  return { message: { t: 'result', id, kind: 'ok' }, payload: JSON.stringify(result) };
}

function tooLarge(id: number, why: string): ResultFrame {
  return { message: { t: 'result', id, kind: 'too_large', message: `The call took effect, but ${why}.` } };
}

/** A failure after the call was sent: the tool may have done something, so it is a result, not a refusal. */
function failureResult(error: unknown): ToolResult {
  const text = error instanceof Error ? error.message : String(error);
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * A resources.read that failed after it was sent: a read result with no contents, marked as a tool
 * result is (`isError`, the reason as text content), so a script checks it the same way.
 */
export function failedRead(error: unknown): unknown {
  return { contents: [], ...failureResult(error) };
}
