/**
 * What the engine gives the prelude: host functions (closed over here, never on a global) and
 * the protocol's limits. Types only; the engine builds the object (engine/prelude-host.ts).
 */

export interface Host {
  /**
   * Checks a call's arguments against the value cap and sends it: returns its id, or what to
   * throw when the arguments are past the cap. Output written so far is sent first.
   */
  readonly send: (tool: string, argsJson: string) => number | string;
  /** '' when the arguments' JSON is within the value cap, else the message to throw. */
  readonly checkArgs: (argsJson: string) => string;
  readonly out: (text: string) => void;
  /** '' when sent, 'skipped' when too soon after the previous one, else the message to throw. */
  readonly notify: (payloadJson: string) => string;
  /** Starts a host timer; returns its id. */
  readonly setTimer: (ms: number) => number;
  readonly clearTimer: (id: number) => void;
}

export interface Limits {
  readonly callsInFlightMax: number;
  readonly argsMaxBytes: number;
  readonly valueMaxChars: number;
  readonly notifyPayloadMaxChars: number;
  /** The script's file name in stack frames, and how many columns the wrapper adds to line 1. */
  readonly scriptFile: string;
  readonly scriptLine1Offset: number;
}

/** What the engine calls; held by the engine as an exported handle, never on a global. */
export interface Entry {
  /**
   * Seeds Math.random, installs `tools` and `ALL_TOOLS` for the catalog (names under an
   * `unlisted` prefix are callable too: the server refuses them), then runs the compiled body.
   */
  start(body: () => Promise<unknown>, toolsJson: string, seed: readonly number[], unlisted: readonly string[]): void;
  /** A call's answer: kind is a protocol ResultKind, or 'release' for a held place. */
  deliver(id: number, kind: string, payload: string): void;
  fire(timerId: number): void;
  /** 0 while work remains, 1 when the script has ended, 2 when it awaits what nothing can settle. */
  status(): number;
  /** Calls made but never sent, as JSON text of {tool: count}. */
  unsent(): string;
  /** The ending as JSON text: {status, value?, error?, unsent?}. */
  ending(stalled: boolean): string;
  /** Formats any value as the script would see it printed (errors with the script's frames). */
  format(value: unknown): string;
}
