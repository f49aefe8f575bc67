import type { CallSummary, UnseenCall } from './types.js';

/** 10: unseen calls named with their arguments in a return; the rest are counted by tool. */
export const CALLS_NAMED_MAX = 10;

export interface OpenCall {
  readonly id: number;
  readonly tool: string;
  readonly args: string;
  readonly controller: AbortController;
  timedOut: boolean;
  timer: NodeJS.Timeout | undefined;
}

interface Unseen {
  readonly call: OpenCall;
  readonly how: 'timed-out' | 'cancelled';
  readonly afterMs: number;
  answeredLater?: boolean;
}

function fateOf(unseen: Unseen): string {
  if (unseen.how === 'cancelled') return 'cancelled, may have taken effect';
  const timedOut = `timed out after ${unseen.afterMs} ms`;
  return unseen.answeredLater ? `${timedOut}; the tool answered later` : `${timedOut}; it may still take effect`;
}

/**
 * Every call a script made, kept in the parent so losing the child loses none of it. A call's
 * place is held from its sending until its tool answers, timed-out calls included.
 */
export class CallRecord {
  private readonly open = new Map<number, OpenCall>();
  private readonly unseen: Unseen[] = [];
  private answered = 0;
  private unsent: Record<string, number> = {};

  get openCount(): number {
    return this.open.size;
  }

  isOpen(id: number): boolean {
    return this.open.has(id);
  }

  opened(id: number, tool: string, args: string): OpenCall {
    const call: OpenCall = { id, tool, args, controller: new AbortController(), timedOut: false, timer: undefined };
    this.open.set(id, call);
    return call;
  }

  /** The call's time ran out: the script sees TimeoutError; the place stays held. */
  timedOut(call: OpenCall, afterMs: number): void {
    call.timedOut = true;
    this.unseen.push({ call, how: 'timed-out', afterMs });
  }

  /** The tool answered. Returns whether the script is still waiting for this answer. */
  closed(call: OpenCall): boolean {
    clearTimeout(call.timer);
    this.open.delete(call.id);
    if (!call.timedOut) return true;
    const entry = this.unseen.find((unseen) => unseen.call === call);
    if (entry) entry.answeredLater = true;
    return false;
  }

  /** The answer reached the script's process. */
  delivered(): void {
    this.answered++;
  }

  /** The script ended: every call still out is cancelled upstream and named as such. */
  cancelOpen(): void {
    for (const call of this.open.values()) {
      clearTimeout(call.timer);
      call.controller.abort();
      if (!call.timedOut) this.unseen.push({ call, how: 'cancelled', afterMs: 0 });
    }
    this.open.clear();
    this.unseen.sort((a, b) => a.call.id - b.call.id);
  }

  noteUnsent(counts: Record<string, number>): void {
    this.unsent = counts;
  }

  summary(): CallSummary {
    const named: UnseenCall[] = this.unseen
      .slice(0, CALLS_NAMED_MAX)
      .map((unseen) => ({ tool: unseen.call.tool, args: unseen.call.args, fate: fateOf(unseen) }));
    const unseenMore: Record<string, number> = {};
    for (const { call } of this.unseen.slice(CALLS_NAMED_MAX)) {
      unseenMore[call.tool] = (unseenMore[call.tool] ?? 0) + 1;
    }
    return { answered: this.answered, inFlight: this.open.size, unseen: named, unseenMore, unsent: { ...this.unsent } };
  }
}
