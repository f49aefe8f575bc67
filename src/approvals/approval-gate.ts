/**
 * The calls that wait for a person (issue 27), for one owner of scripts (a session, or a
 * 2026-07-28 principal): each `ask` call is held here, nothing sent upstream, while the person at
 * the client is asked through the owner's origin (elicitation for 2025 clients; the InputQueue and
 * `input_required` for 2026-07-28 ones), and released or refused by the answer.
 *
 * Calls of one tool by one script that wait together make one question (a batch); an allowed
 * batch goes on covering the script's further calls of that tool while some are still out, or
 * until the script calls another tool. A denial holds for the rest of the script. Grants for the
 * rest of a script, or for the owner for some minutes, are kept here.
 */
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { ToolRefusedError } from '../support/errors.js';
import { revealControls } from '../support/echo.js';
import { Logger, type Log } from '../support/log.js';
import { timeoutSignal } from '../support/timeout-signal.js';
import type { ApprovalFallback } from '../config/settings.js';
import { auditApproval, type ApprovalOutcome } from '../telemetry/approval-audit.js';
import {
  UNOFFERED_REVIEW,
  approvalRequest,
  describeCall,
  readApprovalAnswer,
  type ApprovalDecision,
  type ApprovalQuestion,
  type AskedTool,
} from './approval-question.js';

/**
 * How a person is reached: the owner's client (src/mcp wires its CallOrigin: elicitation for a 2025
 * client, the InputQueue for a 2026-07-28 one), or `codemode-mcp run`'s terminal.
 */
export interface PersonChannel {
  /** Whether a person can be asked at all (the client declared elicitation; there is a terminal). */
  readonly accepts: (request: ElicitRequest) => boolean;
  /**
   * Asks on behalf of `script`; rejects when `signal` aborts (the script ended, approvalTimeoutMs
   * passed) or the asking fails. `detail` is for a channel that shows more than the form does.
   */
  readonly ask: (request: ElicitRequest, signal: AbortSignal, script: string, detail: AskDetail) => Promise<ElicitResult>;
}

/** What a channel other than the client's form needs (the approval page, src/approvals/page/). */
export interface AskDetail {
  /** The question as data: every waiting call's arguments whole, as they were when it was asked. */
  readonly question: ApprovalQuestion;
  /** The calls waiting on the answer now: calls of the batch that arrived since it was asked join it. */
  readonly waiting: () => readonly string[];
  readonly identity: ApprovalCall['identity'];
  /**
   * A line for the script's answers to carry until the question is answered, for the model to pass
   * on to the person (a link to open). `urgent`: only the model can reach the person, so the call
   * watching the script answers at once rather than at its yield.
   */
  readonly passOn: (line: string, urgent: boolean) => void;
}

const MINUTE_MS = 60_000;

/** Why a client that declared no elicitation can't be asked. */
export const NO_ELICITATION = "the MCP client can't ask a person (it declared no elicitation)";

/** One call that needs approval. */
export interface ApprovalCall {
  readonly script: string;
  readonly tool: AskedTool;
  readonly argsJson: string;
  /** Aborts when the script ends: the question is withdrawn. */
  readonly signal: AbortSignal;
  /** Who runs the script, as the audit log names them. */
  readonly identity: { readonly principal: string; readonly session: string };
}

/** What the gate decided for one call. `release`: call it once the allowed call has settled (batch bookkeeping). */
export type Verdict =
  | { readonly allowed: true; readonly by: 'person' | 'fallback'; readonly release: () => void }
  | { readonly allowed: false; readonly by: 'person' | 'timeout' | 'fallback' | 'unasked'; readonly refusal: ToolRefusedError };

export interface ApprovalGateOptions {
  readonly person: PersonChannel;
  /** approvalTimeoutMs: a question unanswered this long refuses its calls. */
  readonly timeoutMs: number;
  readonly fallback: ApprovalFallback;
  /** Whose scripts, in the question and the log: `this session`, `principal alice`. */
  readonly owner: string;
  readonly log: Log;
  /** Why no person can be asked when the origin can't, in the log and the refusal. Default NO_ELICITATION. */
  readonly cannotAsk?: string;
  /** The clock grants for the owner expire by; Date.now unless a test gives its own. */
  readonly now?: () => number;
}

interface Waiter {
  readonly argsJson: string;
  readonly settle: (verdict: Verdict) => void;
}

/** Calls of one tool by one script: being asked about, or allowed and going on. */
interface Batch {
  state: 'asking' | 'allowed';
  readonly waiters: Waiter[];
  /** Allowed calls of the batch not yet settled. */
  inFlight: number;
  /** The script called another tool since: the batch ends once none of its calls is out. */
  interrupted: boolean;
  /** In a review: the arguments of the call being asked about now (no longer among the waiters). */
  reviewing?: string;
}

interface ScriptApprovals {
  readonly granted: Set<string>;
  readonly denied: Set<string>;
  readonly batches: Map<string, Batch>;
  /** Tools whose fallback has been logged for this script: once each in the log (the audit log has every call). */
  readonly fallbackLogged: Set<string>;
  /** Per tool, the line the question being asked gave the model to pass on (AskDetail.passOn). */
  readonly passOn: Map<string, string>;
}

const NO_RELEASE = (): void => {};

/** What asking came to: the person's decision, no answer in time, the asking failed, or the script ended first. */
type Outcome =
  | ApprovalDecision
  | { readonly kind: 'timeout' }
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'withdrawn' };

export class ApprovalGate {
  private readonly ownerGrants = new Map<string, number>();
  private readonly scripts = new Map<string, ScriptApprovals>();
  private readonly urgentListeners = new Set<(script: string) => void>();
  private readonly now: () => number;
  private readonly log: Logger;

  constructor(private readonly options: ApprovalGateOptions) {
    this.now = options.now ?? Date.now;
    this.log = Logger.of(options.log).child('approval');
  }

  /** Any tool call of `script` (asking or not): a batch of another tool is interrupted by it. */
  noteCall(script: string, tool: string): void {
    const state = this.scripts.get(script);
    if (state === undefined) return;
    for (const [other, batch] of state.batches) {
      if (other === tool) continue;
      batch.interrupted = true;
      if (batch.state === 'allowed' && batch.inFlight === 0) state.batches.delete(other);
    }
  }

  /** Decides one `ask` call: at once when a grant, a denial or the fallback covers it, else once a person answers. */
  approve(call: ApprovalCall): Promise<Verdict> {
    const tool = call.tool.name;
    const state = this.scriptState(call.script);
    if ((this.ownerGrants.get(tool) ?? 0) > this.now() || state.granted.has(tool)) {
      return Promise.resolve({ allowed: true, by: 'person', release: NO_RELEASE });
    }
    if (state.denied.has(tool)) {
      return Promise.resolve({
        allowed: false,
        by: 'person',
        refusal: new ToolRefusedError('APPROVAL_DENIED', tool, 'a person denied its calls earlier in this script'),
      });
    }
    const batch = state.batches.get(tool);
    if (batch?.state === 'allowed') {
      batch.inFlight++;
      return Promise.resolve({ allowed: true, by: 'person', release: () => this.released(state, tool, batch) });
    }
    if (batch !== undefined) return this.join(batch, call.argsJson);
    const request = approvalRequest({ tool: call.tool, calls: [call.argsJson], asker: 'a script', owner: this.options.owner });
    if (!this.options.person.accepts(request)) return Promise.resolve(this.fallback(call, state));
    const asking: Batch = { state: 'asking', waiters: [], inFlight: 0, interrupted: false };
    state.batches.set(tool, asking);
    const verdict = this.join(asking, call.argsJson);
    // The calls a Promise.all sends arrive together: let the rest of them join before asking.
    setImmediate(() => void this.ask(call, state, asking));
    return verdict;
  }

  /** `fs__delete_file({"path":"a.txt"}) and 15 more calls of it`: what `script` waits on, a line per tool. */
  waiting(script: string): string[] {
    const state = this.scripts.get(script);
    if (state === undefined) return [];
    const lines: string[] = [];
    for (const [tool, batch] of state.batches) {
      const calls = [
        ...(batch.reviewing !== undefined ? [batch.reviewing] : []),
        ...batch.waiters.map((waiter) => waiter.argsJson),
      ];
      if (batch.state !== 'asking' || calls.length === 0) continue;
      const more = calls.length - 1;
      const passOn = state.passOn.get(tool);
      lines.push(
        `${describeCall(tool, calls[0]!)}${more > 0 ? ` and ${more} more calls of it` : ''}${passOn !== undefined ? ` — ${passOn}` : ''}`,
      );
    }
    return lines;
  }

  /** Tells `listener` of each script whose question only the model can pass on (AskDetail.passOn, urgent). */
  onUrgent(listener: (script: string) => void): () => void {
    this.urgentListeners.add(listener);
    return () => this.urgentListeners.delete(listener);
  }

  /** The script ended: its grants, denials and batches go with it (its questions were withdrawn by its signal). */
  forget(script: string): void {
    this.scripts.delete(script);
  }

  private get cannotAsk(): string {
    return this.options.cannotAsk ?? NO_ELICITATION;
  }

  private scriptState(script: string): ScriptApprovals {
    let state = this.scripts.get(script);
    if (state === undefined) {
      state = { granted: new Set(), denied: new Set(), batches: new Map(), fallbackLogged: new Set(), passOn: new Map() };
      this.scripts.set(script, state);
    }
    return state;
  }

  private join(batch: Batch, argsJson: string): Promise<Verdict> {
    return new Promise<Verdict>((settle) => batch.waiters.push({ argsJson, settle }));
  }

  private released(state: ScriptApprovals, tool: string, batch: Batch): void {
    batch.inFlight--;
    if (batch.inFlight === 0 && batch.interrupted && state.batches.get(tool) === batch) state.batches.delete(tool);
  }

  /**
   * The client can't ask a person: approvalFallback decides. The audit log has a line for every
   * call it decides; the log says it once per script and tool.
   */
  private fallback(call: ApprovalCall, state: ScriptApprovals): Verdict {
    const tool = call.tool.name;
    const allow = this.options.fallback === 'allow';
    this.audit(call, allow ? 'fallback_allowed' : 'fallback_refused', 1);
    if (!state.fallbackLogged.has(tool)) {
      state.fallbackLogged.add(tool);
      this.log.info(
        `script ${call.script} called ${revealControls(tool)}, which asks for approval, but ${this.cannotAsk}: ` +
          `${allow ? 'sent unasked' : 'refused'}, as approvalFallback is "${this.options.fallback}"`,
      );
    }
    if (allow) return { allowed: true, by: 'fallback', release: NO_RELEASE };
    return {
      allowed: false,
      by: 'fallback',
      refusal: new ToolRefusedError(
        'APPROVAL_UNAVAILABLE',
        tool,
        `its calls need a person's approval and ${this.cannotAsk}; the server's approvalFallback is "refuse"`,
      ),
    };
  }

  private async ask(first: ApprovalCall, state: ScriptApprovals, batch: Batch): Promise<void> {
    const calls = batch.waiters.map((waiter) => waiter.argsJson);
    this.log.info(`asking about ${calls.length} call(s) of ${revealControls(first.tool.name)} by ${this.asker(first)}`);
    this.audit(first, 'asked', calls.length);
    const outcome = await this.askPerson(first, calls, () => batch.waiters.map((waiter) => waiter.argsJson));
    if (outcome.kind === 'review') return this.review(first, state, batch);
    this.settleAll(state, first.tool.name, batch, outcome, first);
  }

  /**
   * "Review them one by one": a question per waiting call, in order (calls that join meanwhile are
   * reviewed too). Allow decides that call alone, and so does any answer that is not an allow
   * (a denial, a dismissal, an answer the question did not offer): it refuses that call. A grant,
   * no answer in time or the script's end decides it and every call still waiting.
   */
  private async review(first: ApprovalCall, state: ScriptApprovals, batch: Batch): Promise<void> {
    const tool = first.tool.name;
    for (let waiter = batch.waiters.shift(); waiter !== undefined; waiter = batch.waiters.shift()) {
      batch.reviewing = waiter.argsJson;
      const outcome = await this.askPerson(first, [waiter.argsJson], () => [waiter.argsJson]);
      delete batch.reviewing;
      if (outcome.kind === 'allow-batch') {
        this.log.info(`a call of ${revealControls(tool)} by script ${first.script} allowed by a person (reviewed)`);
        this.audit(first, 'allowed', 1, 'this call');
        waiter.settle({ allowed: true, by: 'person', release: NO_RELEASE });
      } else if (outcome.kind === 'deny' || outcome.kind === 'review') {
        // "review" is not offered for one call: an answer of it allows nothing, as any other would.
        const decision = outcome.kind === 'deny' ? outcome : unofferedReview;
        this.log.info(`a call of ${revealControls(tool)} by script ${first.script} ${deniedHow(decision)} (reviewed)`);
        this.audit(first, 'denied', 1);
        waiter.settle({
          allowed: false,
          by: 'person',
          refusal: new ToolRefusedError('APPROVAL_DENIED', tool, denialReason(decision)),
        });
      } else {
        batch.waiters.unshift(waiter);
        return this.settleAll(state, tool, batch, outcome, first);
      }
    }
    if (state.batches.get(tool) === batch) state.batches.delete(tool);
  }

  /** Asks about `calls` of the first call's tool, within approvalTimeoutMs and the script's life. */
  private async askPerson(first: ApprovalCall, calls: readonly string[], waiting: () => readonly string[]): Promise<Outcome> {
    const question: ApprovalQuestion = { tool: first.tool, calls, asker: this.asker(first), owner: this.options.owner };
    const request = approvalRequest(question);
    const timeout = timeoutSignal(this.options.timeoutMs);
    const tool = first.tool.name;
    const lines = this.scripts.get(first.script)?.passOn;
    const passOn = (line: string, urgent: boolean): void => {
      lines?.set(tool, line);
      if (urgent) for (const listener of [...this.urgentListeners]) listener(first.script);
    };
    const signal = AbortSignal.any([first.signal, timeout]);
    try {
      return readApprovalAnswer(
        await this.options.person.ask(request, signal, first.script, { question, waiting, identity: first.identity, passOn }),
        // The calls waiting when the answer came: the page shows the calls that joined meanwhile, and offers a review of them.
        waiting().length,
      );
    } catch (error) {
      if (first.signal.aborted) return { kind: 'withdrawn' };
      return timeout.aborted ? { kind: 'timeout' } : { kind: 'failed', reason: (error as Error).message };
    } finally {
      lines?.delete(tool);
    }
  }

  private asker(call: ApprovalCall): string {
    return `script ${call.script} of ${this.options.owner}`;
  }

  /** Applies the answer to every call that waited on it (more may have joined while it was asked). */
  private settleAll(
    state: ScriptApprovals,
    tool: string,
    batch: Batch,
    decision: Exclude<Outcome, { kind: 'review' }>,
    first: ApprovalCall,
  ): void {
    const waiters = batch.waiters.splice(0);
    const count = waiters.length;
    const calls = `${count} call(s) of ${revealControls(tool)} by script ${first.script}`;
    const refuse = (
      by: 'person' | 'timeout' | 'unasked',
      code: 'APPROVAL_DENIED' | 'APPROVAL_TIMED_OUT' | 'APPROVAL_UNAVAILABLE',
      reason: string,
    ) => {
      if (state.batches.get(tool) === batch) state.batches.delete(tool);
      for (const waiter of waiters) waiter.settle({ allowed: false, by, refusal: new ToolRefusedError(code, tool, reason) });
    };
    if (decision.kind === 'withdrawn') {
      this.log.info(`question withdrawn, the script ended; ${calls} never sent`);
      this.audit(first, 'withdrawn', count);
      return refuse('unasked', 'APPROVAL_UNAVAILABLE', 'the script ended before a person answered');
    }
    switch (decision.kind) {
      case 'timeout':
        this.log.info(`no answer within approvalTimeoutMs; ${calls} refused`);
        this.audit(first, 'timed_out', count);
        return refuse(
          'timeout',
          'APPROVAL_TIMED_OUT',
          `no person answered within ${this.options.timeoutMs} ms (the server's approvalTimeoutMs)`,
        );
      case 'failed':
        this.log.warn(`could not ask (${decision.reason}); ${calls} refused`);
        this.audit(first, 'unasked', count);
        return refuse('unasked', 'APPROVAL_UNAVAILABLE', `no person could be asked: ${decision.reason}`);
      case 'deny':
        state.denied.add(tool);
        this.log.info(`${calls} ${deniedHow(decision)}`);
        this.audit(first, 'denied', count);
        return refuse('person', 'APPROVAL_DENIED', denialReason(decision));
      case 'allow-batch':
        batch.state = 'allowed';
        batch.inFlight += count;
        break;
      case 'allow-script':
        state.granted.add(tool);
        state.batches.delete(tool);
        break;
      case 'allow-owner':
        this.ownerGrants.set(tool, this.now() + decision.minutes * MINUTE_MS);
        state.batches.delete(tool);
        break;
    }
    const scope =
      decision.kind === 'allow-batch'
        ? 'this batch'
        : decision.kind === 'allow-script'
          ? 'the rest of the script'
          : `${this.options.owner}, for ${decision.minutes} min`;
    this.log.info(`${calls} allowed by a person (${scope})`);
    this.audit(first, 'allowed', count, scope);
    const release = decision.kind === 'allow-batch' ? () => this.released(state, tool, batch) : NO_RELEASE;
    for (const waiter of waiters) waiter.settle({ allowed: true, by: 'person', release });
  }

  private audit(call: ApprovalCall, outcome: ApprovalOutcome, calls: number, scope?: string): void {
    auditApproval({
      principal: call.identity.principal,
      session: call.identity.session,
      script: call.script,
      tool: call.tool.name,
      approval: outcome,
      calls,
      ...(scope !== undefined ? { scope } : {}),
    });
  }
}

type Denial = Extract<ApprovalDecision, { kind: 'deny' }>;

/** An answer of "review" to a question that did not offer it (a question about one call). */
const unofferedReview: Denial = { kind: 'deny', how: 'unreadable', answer: UNOFFERED_REVIEW };

/** `denied by a person`, for the log. */
function deniedHow(denial: Denial): string {
  if (denial.how === 'declined') return 'denied by a person';
  if (denial.how === 'dismissed') return 'dismissed by a person';
  return `refused: the answer allowed nothing (${denial.answer})`;
}

/** Why the calls were refused, in the ToolRefused the script gets. */
function denialReason(denial: Denial): string {
  if (denial.how === 'declined') return 'a person denied it';
  if (denial.how === 'dismissed') return 'a person dismissed the question without allowing it';
  return `the answer to its question allowed nothing (${denial.answer})`;
}
