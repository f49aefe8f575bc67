import { ResultTooLarge, TimeoutError, ToolRefused } from './errors';
import type { Host, Limits } from './host';
import { jsonStringify, jsonParse } from './intrinsics';

interface Waiting {
  readonly tool: string;
  readonly argsJson: string;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: unknown) => void;
}

interface Sent {
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: unknown) => void;
}


/**
 * The script's tool calls: at most `callsInFlightMax` out at once (a timed-out call keeps its
 * place until the engine releases it); more wait here, in the script's own memory.
 */
export class Calls {
  /** Calls sent and not yet answered; a timed-out call stays, with no one waiting on it. */
  private readonly out = new Map<number, Sent | null>();
  private readonly waiting: Waiting[] = [];
  private waitingHead = 0;
  /** Calls out whose answer the script still waits for: `out` less the timed-out ones. */
  private awaited = 0;

  constructor(
    private readonly host: Host,
    private readonly limits: Limits,
  ) {}

  /**
   * Calls the script still waits on: sent and unanswered, or not yet sent. A timed-out call holds
   * its place but no longer keeps the script alive: the script has had its TimeoutError.
   */
  get busy(): boolean {
    return this.awaited > 0 || this.waitingHead < this.waiting.length;
  }

  /** Checks the arguments at once (nothing is sent when they are wrong), then sends or queues. */
  call(tool: string, args: unknown): Promise<unknown> {
    const argsJson = this.argumentsJson(tool, args);
    if (this.out.size < this.limits.callsInFlightMax && this.waitingHead === this.waiting.length) {
      // A place is free: one crossing to the host checks and sends.
      const id = this.host.send(tool, argsJson);
      if (typeof id === 'string') throw new RangeError(`tools[${jsonStringify(tool)}](args): ${id}; nothing was sent`);
      return new Promise((resolve, reject) => this.sent(id, { resolve, reject }));
    }
    const problem = this.host.checkArgs(argsJson);
    if (problem !== '') throw new RangeError(`tools[${jsonStringify(tool)}](args): ${problem}; nothing was sent`);
    return new Promise((resolve, reject) => {
      this.waiting.push({ tool, argsJson, resolve, reject });
    });
  }

  deliver(id: number, kind: string, payload: string): void {
    const sent = this.out.get(id);
    if (sent === undefined) return;
    if (kind === 'timeout') {
      if (sent === null) return;
      this.out.set(id, null);
      this.awaited--;
      sent.reject(new TimeoutError(payload));
      return;
    }
    this.out.delete(id);
    if (sent !== null) {
      this.awaited--;
      if (kind === 'ok') settleParsed(sent, payload);
      else if (kind === 'refused') sent.reject(new ToolRefused(payload));
      else if (kind === 'too_large') sent.reject(new ResultTooLarge(payload));
    }
    this.sendWaiting();
  }

  /** Calls made but never sent, counted by tool. */
  unsent(): Record<string, number> {
    // No prototype: a setter the script put on Object.prototype must not run (at a stop, interrupts are off).
    const counts: Record<string, number> = Object.create(null);
    for (let i = this.waitingHead; i < this.waiting.length; i++) {
      const tool = this.waiting[i]!.tool;
      counts[tool] = (counts[tool] ?? 0) + 1;
    }
    return counts;
  }

  private sendWaiting(): void {
    while (this.out.size < this.limits.callsInFlightMax && this.waitingHead < this.waiting.length) {
      const next = this.waiting[this.waitingHead]!;
      this.waiting[this.waitingHead++] = undefined as unknown as Waiting;
      if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
        this.waiting.splice(0, this.waitingHead);
        this.waitingHead = 0;
      }
      const id = this.host.send(next.tool, next.argsJson);
      if (typeof id === 'string') next.reject(new RangeError(id));
      else this.sent(id, { resolve: next.resolve, reject: next.reject });
    }
  }

  private sent(id: number, waiter: Sent): void {
    this.out.set(id, waiter);
    this.awaited++;
  }

  private argumentsJson(tool: string, args: unknown): string {
    const name = jsonStringify(tool);
    if (args === undefined) return '{}';
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      throw new TypeError(`tools[${name}](args): args must be an object of named arguments`);
    }
    let json: string;
    try {
      json = jsonStringify(args);
    } catch (error) {
      throw new TypeError(`tools[${name}](args): args can't become JSON: ${(error as Error).message}`);
    }
    if (json.length > this.limits.argsMaxBytes) {
      throw new RangeError(
        `tools[${name}](args): args are ${json.length} characters of JSON, past the cap of ` +
          `${this.limits.argsMaxBytes}; nothing was sent`,
      );
    }
    return json;
  }
}

function settleParsed(sent: Sent, payload: string): void {
  let result: unknown;
  try {
    result = jsonParse(payload);
  } catch (error) {
    sent.reject(error);
    return;
  }
  sent.resolve(result);
}
