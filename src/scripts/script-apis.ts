/**
 * The host APIs as one script reaches them: its owner's (OwnerApis), with each tool call through
 * the approval gate (its timeout held while a person decides), counted on the script's span, and
 * its upstream's progress passed to whoever watches the script; its fetch() made for it, a person
 * asked through the same gate where the config says so, and counted the same way.
 */
import type { ApprovalGate } from '../approvals/approval-gate.js';
import type { CatalogTool } from '../catalog/types.js';
import type { ScriptFetch } from '../fetch/fetch-api.js';
import type { FetchCaller, ScriptApis } from '../script-host/apis.js';
import type { ToolProgress, ToolResult } from '../script-host/types.js';
import type { CallCaller } from '../telemetry/observe-call.js';
import type { ScriptTrace } from '../telemetry/telemetry.js';
import type { CheckOutcome } from '../typecheck/script-checker.js';
import { approveThrough, sendApproved, type ApprovalTally } from './approved-calls.js';

/** A tool call with a listener for the upstream's progress notifications on it, made for `caller`. */
export type ProgressingToolCaller = (
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
  onProgress: (progress: ToolProgress) => void,
  caller: CallCaller,
) => Promise<ToolResult>;

/**
 * The host APIs bound to one owner of scripts (src/mcp/host-apis.ts builds them): ScriptApis, with
 * tool calls made for a caller, fetch() made for each script (its id, span and approvals), and the
 * type check a run passes first.
 */
export interface OwnerApis extends Omit<ScriptApis, 'tools' | 'fetch'> {
  readonly tools: ProgressingToolCaller;
  readonly fetch?: ScriptFetch;
  /** A script checked against the catalog it will be given (src/typecheck/, issue 47); absent when typeCheck is off. */
  readonly typeCheck?: (code: string, catalog: readonly CatalogTool[]) => Promise<CheckOutcome>;
}

export interface ScriptOfOwner {
  readonly id: string;
  /** Who runs it, as the audit log names them: the state's principal, and the owner's label. */
  readonly identity: { readonly principal: string; readonly session: string };
  readonly trace: ScriptTrace;
  /** The tools as the catalog has them now, for each call's approval policy. */
  readonly catalog: () => readonly CatalogTool[];
  /** Where calls of `ask` tools wait for a person; absent, every allowed call goes straight on. */
  readonly gate: ApprovalGate | undefined;
  readonly tally: ApprovalTally;
  /** An upstream's progress on one of the script's calls, described (`tools["slow"]: 3/10 copying`). */
  readonly onProgress: (line: string) => void;
}

export function scriptApis(owner: OwnerApis, script: ScriptOfOwner): ScriptApis {
  const { id, identity, trace, gate, tally } = script;
  const caller: CallCaller = { ...(trace.context !== undefined ? { trace: trace.context } : {}), script: { id, ...identity } };
  // The type check is the run's, before the script exists: not one of the APIs the script calls.
  const { fetch: fetchFor, typeCheck: _checkedBeforeRun, ...apis } = owner;
  const fetch = fetchFor?.({ id, caller, ...(gate !== undefined ? { approve: approveThrough(gate, id, identity, tally) } : {}) });
  return {
    ...apis,
    ...(fetch !== undefined ? { fetch: countedFetch(fetch, trace) } : {}),
    tools: (name, args, signal, hold) => {
      const onProgress = (progress: ToolProgress) => script.onProgress(describeProgress(name, progress));
      const send = () => owner.tools(name, args, signal, onProgress, caller);
      const tool = gate === undefined ? undefined : script.catalog().find((entry) => entry.name === name);
      const answer =
        gate === undefined ? send() : sendApproved({ gate, script: id, tool, name, args, signal, hold, identity, tally }, send);
      trace.countCall(answer);
      return answer;
    },
  };
}

/** Each fetch counted on the script's span: one that failed on the way says `isError`, a call that failed after sending. */
function countedFetch(fetch: FetchCaller, trace: ScriptTrace): FetchCaller {
  return (request, signal, hold) => {
    const answer = fetch(request, signal, hold);
    // The answer itself, not a copy made by then(): a copy's rejection would go unhandled with telemetry off.
    trace.countCall(answer as Promise<{ readonly isError?: boolean }>);
    return answer;
  };
}

/** `tools["slow"]: 3/10 copying` */
function describeProgress(tool: string, progress: ToolProgress): string {
  const count = progress.total !== undefined ? `${progress.progress}/${progress.total}` : String(progress.progress);
  return `tools[${JSON.stringify(tool)}]: ${count}${progress.message !== undefined ? ` ${progress.message}` : ''}`;
}
