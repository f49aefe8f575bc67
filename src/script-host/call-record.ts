import { setMaxListeners } from 'node:events';
import { CALLS_IN_FLIGHT_MAX } from '../../protocol/contract.js';
import type { CallSummary, UnseenCall } from './types.js';

/** 10: unseen calls named with their arguments in a return; the rest are counted by tool. */
export const CALLS_NAMED_MAX = 10;

export interface OpenCall {
  readonly id: number;
  readonly tool: string;
  readonly args: string;
  /** For a `resources` call: how the record names it (`resources.read("test://a")`). */
  readonly label?: string;
  /**
   * Counted among the script's calls (answered, refused): a tool's, a resource read. The script's
   * own memory and skills (`store`, `skills.get`) are not calls of anyone's tool, so not counted.
   */
  readonly counted: boolean;
  /** performance.now() past which the call times out. */
  deadline: number;
  timedOut: boolean;
  /** Waiting for a person's approval: its timeout is not running (holdTimeout). */
  held: boolean;
}

interface Unseen {
  readonly call: OpenCall;
  readonly how: 'timed-out' | 'cancelled' | 'unread';
  readonly timeoutMs: number;
  answeredLater?: boolean;
}

function fateOf(unseen: Unseen): string {
  if (unseen.how === 'cancelled') return 'cancelled, may have taken effect';
  if (unseen.how === 'unread') return 'answered (it took effect), but the script ended before it read the answer';
  const timedOut = `timed out after ${unseen.timeoutMs} ms`;
  return unseen.answeredLater ? `${timedOut}; the tool answered later` : `${timedOut}; it may still take effect`;
}

/**
 * Every call a script made, kept in the parent so losing the child loses none of it. A call's
 * place is held from its sending until its tool answers, timed-out calls included.
 *
 * One signal cancels every call still out when the script ends, and one timer serves every
 * call's timeout: calls share a timeout, so the oldest open call is always the next due.
 */
export class CallRecord {
  private readonly open = new Map<number, OpenCall>();
  private readonly unseen: Unseen[] = [];
  private readonly cancel = new AbortController();
  private timeoutTimer: NodeJS.Timeout | undefined;
  /** Answers sent to the child, and the last of them: only as many as places can be unread at once. */
  private answersSent = 0;
  private readonly lastAnswersSent: Array<{ readonly call: OpenCall; readonly refused: boolean }> = [];
  /** Of the answers sent, the counted calls' refusals (ToolRefused: the call was never sent upstream). */
  private refusalsSent = 0;
  /** Of the answers sent, those of calls not counted (OpenCall.counted). */
  private uncountedSent = 0;
  /** Of the refusals sent, those a person decided (APPROVAL_DENIED). */
  private denialsSent = 0;
  /** Answers written into the child's stdin, and, once it ends, how many it says the script read. */
  private answersWritten = 0;
  private answersRead: number | null = null;
  private unsent: Record<string, number> = {};

  constructor(
    private readonly timeoutMs: number,
    private readonly onTimeout: (call: OpenCall) => void,
  ) {
    // Each call out listens on the one signal: 16 at once would set off Node's leak warning at 11.
    setMaxListeners(2 * CALLS_IN_FLIGHT_MAX, this.cancel.signal);
  }

  /** Aborts when the script has ended: the calls still out are cancelled upstream. */
  get signal(): AbortSignal {
    return this.cancel.signal;
  }

  get openCount(): number {
    return this.open.size;
  }

  isOpen(id: number): boolean {
    return this.open.has(id);
  }

  opened(id: number, tool: string, args: string, label?: string, counted = true): OpenCall {
    const call: OpenCall = {
      id,
      tool,
      args,
      ...(label !== undefined ? { label } : {}),
      counted,
      deadline: performance.now() + this.timeoutMs,
      timedOut: false,
      held: false,
    };
    this.open.set(id, call);
    if (this.timeoutTimer === undefined) this.armTimeout(call.deadline);
    return call;
  }

  /** The call waits for a person's approval: its timeout stops until releaseTimeout. */
  holdTimeout(call: OpenCall): void {
    call.held = true;
  }

  /**
   * The approval came: the call's timeout starts afresh. It moves to the end of the open calls, so
   * they stay in deadline order and the oldest unheld one is still the next due.
   */
  releaseTimeout(call: OpenCall): void {
    if (!call.held || !this.open.has(call.id)) return;
    call.held = false;
    call.deadline = performance.now() + this.timeoutMs;
    this.open.delete(call.id);
    this.open.set(call.id, call);
    if (this.timeoutTimer === undefined) this.armTimeout(call.deadline);
  }

  /** The tool answered. Returns whether the script is still waiting for this answer. */
  closed(call: OpenCall): boolean {
    this.open.delete(call.id);
    if (!call.timedOut) return true;
    const entry = this.unseen.find((unseen) => unseen.call === call);
    if (entry) entry.answeredLater = true;
    return false;
  }

  /** The call's answer is on its way to the script's process; `refused` when it is a ToolRefused, `denied` when a person refused it. */
  answerSent(call: OpenCall, refused: boolean, denied = false): void {
    this.answersSent++;
    if (!call.counted) this.uncountedSent++;
    else if (refused) this.refusalsSent++;
    if (denied) this.denialsSent++;
    this.lastAnswersSent.push({ call, refused });
    if (this.lastAnswersSent.length > 2 * CALLS_IN_FLIGHT_MAX) this.lastAnswersSent.shift();
  }

  /** The answer was written into the child's stdin. */
  answerWritten(): void {
    this.answersWritten++;
  }

  /**
   * The child's count of answers its script read, from its ending. False when it can't be true:
   * more than were sent, or fewer than the places that could have been left unread.
   */
  noteAnswersRead(count: number): boolean {
    const unread = this.answersSent - count;
    if (unread < 0 || unread > this.lastAnswersSent.length) return false;
    this.answersRead = count;
    return true;
  }

  /**
   * The script ended: every call still out is cancelled upstream and named as such, and so is
   * every answer the script never read (by the child's count, or else those never written).
   */
  cancelOpen(): void {
    clearTimeout(this.timeoutTimer);
    this.cancel.abort();
    for (const call of this.open.values()) {
      if (!call.timedOut) this.unseen.push({ call, how: 'cancelled', timeoutMs: 0 });
    }
    this.open.clear();
    // A refusal the script never read is no loss: nothing was sent, and it is counted as refused.
    for (const { call, refused } of this.unreadAnswers()) {
      if (!refused) this.unseen.push({ call, how: 'unread', timeoutMs: 0 });
    }
    this.unseen.sort((a, b) => a.call.id - b.call.id);
  }

  /** Times out every call past its deadline (the script sees TimeoutError; the place stays held), then re-arms. */
  private sweepTimeouts(): void {
    this.timeoutTimer = undefined;
    const now = performance.now();
    for (const call of this.open.values()) {
      if (call.timedOut || call.held) continue;
      if (call.deadline > now) return this.armTimeout(call.deadline);
      call.timedOut = true;
      this.unseen.push({ call, how: 'timed-out', timeoutMs: this.timeoutMs });
      this.onTimeout(call);
    }
  }

  private armTimeout(deadline: number): void {
    this.timeoutTimer = setTimeout(() => this.sweepTimeouts(), Math.max(0, deadline - performance.now()));
  }

  noteUnsent(counts: Record<string, number>): void {
    this.unsent = counts;
  }

  /** The answers sent that the script has not read (by the child's count once it ended, else those not yet written). */
  private unreadAnswers(): ReadonlyArray<{ readonly call: OpenCall; readonly refused: boolean }> {
    const unread = this.answersSent - (this.answersRead ?? this.answersWritten);
    return unread > 0 ? this.lastAnswersSent.slice(-unread) : [];
  }

  summary(): CallSummary {
    const named: UnseenCall[] = this.unseen.slice(0, CALLS_NAMED_MAX).map(({ call, ...unseen }) => ({
      tool: call.tool,
      args: call.args,
      ...(call.label !== undefined ? { label: call.label } : {}),
      fate: fateOf({ call, ...unseen }),
    }));
    const unseenMore: Record<string, number> = {};
    for (const { call } of this.unseen.slice(CALLS_NAMED_MAX)) {
      unseenMore[call.tool] = (unseenMore[call.tool] ?? 0) + 1;
    }
    // Read answers less the refusals among them (a refused call was never sent, so it was not
    // answered) and less those of calls not counted.
    const unread = this.unreadAnswers();
    const refusalsRead = this.refusalsSent - unread.filter((answer) => answer.refused && answer.call.counted).length;
    const uncountedRead = this.uncountedSent - unread.filter((answer) => !answer.call.counted).length;
    const answered = (this.answersRead ?? this.answersWritten) - refusalsRead - uncountedRead;
    return {
      answered,
      refused: this.refusalsSent,
      ...(this.denialsSent > 0 ? { deniedByPerson: this.denialsSent } : {}),
      inFlight: this.open.size,
      unseen: named,
      unseenMore,
      unsent: { ...this.unsent },
    };
  }
}
