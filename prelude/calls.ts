import { DELIVERY } from '../common/seam.js';
import { describeThrown, refused, resultTooLarge, timedOut } from './errors.js';
import { host, limits } from './host.js';
import {
  ArrayIsArray,
  JSONParse,
  JSONStringify,
  MapDelete,
  MapGet,
  MapSet,
  MapSize,
  NullProto,
  PromiseConstructor,
  RangeErrorConstructor,
  StringCharCodeAt,
  TypeErrorConstructor,
  blank,
  dictionary,
  list,
  newError,
} from './intrinsics.js';

/** A call sent and not yet answered; after its timeout it stays, with no one waiting on it. */
class Sent extends NullProto {
  constructor(
    readonly resolve: (result: unknown) => void,
    readonly reject: (error: unknown) => void,
  ) {
    super();
  }
}

/** What a built-in API's call gives the script, made from the server's answer (the prelude's own function, never the script's). */
export type Unwrap = (answer: unknown) => unknown;

/** A call made while every place was taken: sent when one frees. */
class Waiting extends NullProto {
  constructor(
    readonly tool: string,
    readonly argsJson: string,
    /** A call of a built-in API: `tool` is its name in API_CALLS. */
    readonly api: boolean,
    readonly resolve: (result: unknown) => void,
    readonly reject: (error: unknown) => void,
  ) {
    super();
  }
}

/**
 * The script's tool calls: at most `callsInFlightMax` out at once (a timed-out call keeps its
 * place until the engine releases it); more wait here, in the script's own memory.
 */
export class Calls extends NullProto {
  /** Calls sent and not yet answered; a timed-out one maps to null. */
  private readonly out = dictionary<number, Sent | null>();
  private readonly waiting = list<Waiting | null>();
  private waitingHead = 0;
  /** Calls out whose answer the script still waits for: `out` less the timed-out ones. */
  private awaited = 0;

  /**
   * Calls the script still waits on: sent and unanswered, or not yet sent. A timed-out call holds
   * its place but no longer keeps the script alive: the script has had its TimeoutError.
   */
  get busy(): boolean {
    return this.awaited > 0 || this.waitingHead < this.waiting.length;
  }

  /** Checks the arguments at once (nothing is sent when they are wrong), then sends or queues. */
  call(tool: string, args: unknown): Promise<unknown> {
    return this.place(`tools[${JSONStringify(tool)}](args)`, tool, argumentsJson(tool, args), false);
  }

  /**
   * A call of a built-in API (`call` one of API_CALLS: `resources`, `store`/`load`), with arguments
   * the prelude made: sent or queued as a tool call is, in the same places. `label` names it in
   * what it throws; `unwrap`, when given, makes what the script gets from the server's answer.
   */
  callApi(call: string, argsJson: string, label: string, unwrap?: Unwrap): Promise<unknown> {
    return this.place(label, call, argsJson, true, unwrap);
  }

  private place(label: string, tool: string, argsJson: string, api: boolean, unwrap?: Unwrap): Promise<unknown> {
    const capture = blank<{ resolve: (result: unknown) => void; reject: (error: unknown) => void }>();
    const promise = new PromiseConstructor<unknown>((resolve, reject) => {
      capture.resolve = unwrap === undefined ? resolve : (answer: unknown) => resolve(unwrap(answer));
      capture.reject = reject;
    });
    if (MapSize(this.out) < limits.callsInFlightMax && this.waitingHead === this.waiting.length) {
      // A place is free: one crossing to the host checks and sends.
      const id = api ? host.sendApi(tool, argsJson) : host.send(tool, argsJson);
      if (typeof id === 'string') throw newError(RangeErrorConstructor, `${label}: ${id}; nothing was sent`);
      this.opened(id, new Sent(capture.resolve, capture.reject));
      return promise;
    }
    const problem = host.checkArgs(argsJson);
    if (problem !== '') throw newError(RangeErrorConstructor, `${label}: ${problem}; nothing was sent`);
    this.waiting[this.waiting.length] = new Waiting(tool, argsJson, api, capture.resolve, capture.reject);
    return promise;
  }

  deliver(id: number, kind: string, payload: string): void {
    const sent = MapGet(this.out, id) as Sent | null | undefined;
    if (sent === undefined) return;
    if (kind === DELIVERY.timeout) {
      if (sent === null) return;
      MapSet(this.out, id, null);
      this.awaited--;
      sent.reject(timedOut(payload));
      return;
    }
    MapDelete(this.out, id);
    if (sent !== null) {
      this.awaited--;
      if (kind === DELIVERY.ok) settleParsed(sent, payload);
      else if (kind === DELIVERY.refused) sent.reject(refused(payload));
      else if (kind === DELIVERY.tooLarge) sent.reject(resultTooLarge(payload));
    }
    this.sendWaiting();
  }

  /** Calls made but never sent, as JSON text of {tool: count}. */
  unsentJson(): string {
    const counts = blank<Record<string, number>>();
    for (let i = this.waitingHead; i < this.waiting.length; i++) {
      const tool = this.waiting[i]!.tool;
      counts[tool] = (counts[tool] ?? 0) + 1;
    }
    return JSONStringify(counts);
  }

  private sendWaiting(): void {
    while (MapSize(this.out) < limits.callsInFlightMax && this.waitingHead < this.waiting.length) {
      const next = this.waiting[this.waitingHead]!;
      this.waiting[this.waitingHead++] = null;
      if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) this.compact();
      const id = next.api ? host.sendApi(next.tool, next.argsJson) : host.send(next.tool, next.argsJson);
      if (typeof id === 'string') next.reject(newError(RangeErrorConstructor, id));
      else this.opened(id, new Sent(next.resolve, next.reject));
    }
  }

  /** Drops the sent calls from the front of the queue. */
  private compact(): void {
    const rest = list<Waiting | null>();
    for (let i = this.waitingHead; i < this.waiting.length; i++) rest[rest.length] = this.waiting[i]!;
    this.waiting.length = 0;
    for (let i = 0; i < rest.length; i++) this.waiting[i] = rest[i]!;
    this.waitingHead = 0;
  }

  private opened(id: number, sent: Sent): void {
    MapSet(this.out, id, sent);
    this.awaited++;
  }
}

/**
 * The arguments as JSON. JSON.stringify runs the script's own toJSON, getters and Proxy traps
 * (they are its values); whatever they throw or return, the script gets a TypeError that says so.
 */
function argumentsJson(tool: string, args: unknown): string {
  const name = JSONStringify(tool);
  if (args === undefined) return '{}';
  if (typeof args !== 'object' || args === null || ArrayIsArray(args)) {
    throw newError(TypeErrorConstructor, `tools[${name}](args): args must be an object of named arguments`);
  }
  let json: unknown;
  try {
    json = JSONStringify(args);
  } catch (error) {
    throw newError(TypeErrorConstructor, `tools[${name}](args): args can't become JSON: ${describeThrown(error)}`);
  }
  if (typeof json !== 'string' || StringCharCodeAt(json, 0) !== 0x7b /* { */) {
    const gave = json === undefined ? 'its toJSON gave undefined' : 'it became JSON that is not an object';
    throw newError(TypeErrorConstructor, `tools[${name}](args): args must become a JSON object, but ${gave}; nothing was sent`);
  }
  if (json.length > limits.argsMaxBytes) {
    throw newError(
      RangeErrorConstructor,
      `tools[${name}](args): args are ${json.length} characters of JSON, past the cap of ${limits.argsMaxBytes}; nothing was sent`,
    );
  }
  return json;
}

function settleParsed(sent: Sent, payload: string): void {
  let result: unknown;
  try {
    result = JSONParse(payload);
  } catch (error) {
    sent.reject(error);
    return;
  }
  sent.resolve(result);
}
