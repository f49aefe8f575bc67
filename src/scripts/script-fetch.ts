/**
 * A script's fetch() calls (issue 49), as the scripts layer hands them to the command's fetcher:
 * who the script is, where its spans go, and how a person is asked about a request the config
 * says needs approval, through the owner's approval gate as a tool call in `ask` is.
 */
import type { ApprovalGate } from '../approvals/approval-gate.js';
import type { FetchCaller, TimeoutHold } from '../script-host/types.js';
import type { CallCaller } from '../telemetry/observe-call.js';
import type { ApprovalTally } from './approved-calls.js';

/**
 * A request that waits for a person: what an answer covers (`fetch POST https://api.github.com`),
 * and the request after it, as shown (`/repos/o/r/issues, body 14 bytes sha256 …`).
 */
export interface RequestQuestion {
  readonly subject: string;
  readonly request: string;
}

/**
 * Asks a person about one request: resolves with what to call once the request has settled, or
 * rejects with the gate's ToolRefused (APPROVAL_DENIED, …). The call's timeout is held meanwhile.
 */
export type ApproveRequest = (
  question: RequestQuestion,
  signal: AbortSignal,
  hold: TimeoutHold | undefined,
) => Promise<() => void>;

/** One script, as its fetches need it. */
export interface FetchingScript {
  readonly id: string;
  /** Its span and who runs it (`caller.script` holds the principal and the session). */
  readonly caller: CallCaller;
  /** Absent: no one is asked, and every request the policy allows goes. */
  readonly approve?: ApproveRequest;
}

/** The fetch() calls of each script, made by the command's fetcher (src/mcp/fetch-caller.ts). */
export type ScriptFetch = (script: FetchingScript) => FetchCaller;

/**
 * Asks through `gate` as `script`, the request standing as a call of a tool named by the question's
 * subject: a grant covers that method to that origin, for the batch, the script or a time.
 */
export function approveThrough(
  gate: ApprovalGate,
  script: string,
  identity: { readonly principal: string; readonly session: string },
  tally: ApprovalTally,
): ApproveRequest {
  return async (question, signal, hold) => {
    gate.noteCall(script, question.subject);
    hold?.hold();
    const verdict = await gate.approve({
      script,
      tool: { name: question.subject },
      argsJson: question.request,
      signal,
      identity,
    });
    tally.count(verdict);
    if (!verdict.allowed) throw verdict.refusal;
    hold?.release();
    return verdict.release;
  };
}
