/**
 * A script's tool calls through the approval gate (src/approvals/): a call of an `ask` tool waits,
 * its timeout held, until the gate allows or refuses it; every other call goes straight on. A
 * fetch() the config says a person approves waits the same way (approveThrough). What
 * the gate decided without a person (the fallback, a timeout) is tallied for the script's answers,
 * and a refused call gets its audit line here, since it never reaches the hub that writes the rest.
 */
import { NO_ELICITATION, type ApprovalGate, type Verdict } from '../approvals/approval-gate.js';
import type { CatalogTool } from '../catalog/types.js';
import type { ApprovalFallback } from '../config/settings.js';
import type { ApproveRequest } from '../fetch/fetch-api.js';
import type { TimeoutHold } from '../script-host/apis.js';
import type { ToolResult } from '../script-host/types.js';
import { auditRefusedCall, callMade } from '../telemetry/observe-call.js';

export interface ApprovedCall {
  readonly gate: ApprovalGate;
  readonly script: string;
  readonly tool: CatalogTool | undefined;
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly signal: AbortSignal;
  readonly hold: TimeoutHold | undefined;
  readonly identity: { readonly principal: string; readonly session: string };
  readonly tally: ApprovalTally;
}

/**
 * Sends the call once the gate allows it; rejects with the gate's ToolRefused when it doesn't,
 * nothing sent. A tool the config denies is never put to a person: `send` refuses it at once
 * (TOOL_DENIED), whatever its approval says.
 */
export async function sendApproved(call: ApprovedCall, send: () => Promise<ToolResult>): Promise<ToolResult> {
  const { gate, script, tool } = call;
  gate.noteCall(script, call.name);
  if (tool?.approval !== 'ask' || !tool.allowed) return send();
  call.hold?.hold();
  const made = callMade();
  const verdict = await gate.approve({
    script,
    tool,
    argsJson: JSON.stringify(call.args),
    signal: call.signal,
    identity: call.identity,
  });
  call.tally.count(verdict);
  if (!verdict.allowed) {
    // Never sent, so the hub never sees it: its audit line is written here.
    const info = { scriptName: call.name, tool: tool.upstreamName, upstream: tool.server };
    auditRefusedCall(info, call.args, { id: script, ...call.identity }, made, verdict.refusal);
    throw verdict.refusal;
  }
  call.hold?.release();
  try {
    return await send();
  } finally {
    verdict.release();
  }
}

/**
 * A script's fetch() requests asked about through `gate` as `script`, each standing as a call of a
 * tool named by the question's subject (`fetch POST https://api.github.com`): a grant covers that
 * method to that origin, for the batch, the script or a time. The fetcher audits a refused one.
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

/** The approval outcomes of one script that no person decided, for its answers. */
export class ApprovalTally {
  private fallbackAllowed = 0;
  private fallbackRefused = 0;
  private timedOut = 0;
  private unasked = 0;

  constructor(
    private readonly fallback: ApprovalFallback,
    /** Why no person can be asked, when the fallback decided: the gate's `cannotAsk`. */
    private readonly cannotAsk = NO_ELICITATION,
  ) {}

  count(verdict: Verdict): void {
    if (verdict.by === 'fallback') {
      if (verdict.allowed) this.fallbackAllowed++;
      else this.fallbackRefused++;
    } else if (verdict.by === 'timeout') this.timedOut++;
    else if (verdict.by === 'unasked') this.unasked++;
  }

  /** `approvals: 3 calls sent unasked: …`, a line for each kind there was; none when every call was a person's to decide. */
  lines(): string[] {
    const lines: string[] = [];
    const noAsking = `${this.cannotAsk}, and approvalFallback is "${this.fallback}"`;
    if (this.fallbackAllowed > 0) lines.push(`approvals: ${calls(this.fallbackAllowed)} sent without asking: ${noAsking}`);
    if (this.fallbackRefused > 0) lines.push(`approvals: ${calls(this.fallbackRefused)} refused without asking: ${noAsking}`);
    if (this.timedOut > 0) lines.push(`approvals: ${calls(this.timedOut)} refused: no person answered within approvalTimeoutMs`);
    if (this.unasked > 0) lines.push(`approvals: ${calls(this.unasked)} refused: no person could be asked (see the log)`);
    return lines;
  }
}

function calls(count: number): string {
  return `${count} call${count === 1 ? '' : 's'}`;
}
