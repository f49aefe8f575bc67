/**
 * The seam between the engine (engine/, in the child's Node) and the prelude (prelude/, inside
 * QuickJS): the host functions the engine gives the prelude, the entry methods the prelude gives
 * the engine, and the codes both use. Compiled into both worlds; neither redefines a name or a
 * number from it.
 *
 * The rule of the seam: every value that crosses it is a primitive the other side made (a string,
 * a number), except the script's own values (its body function, its promise's value or reason),
 * which the engine passes through without looking inside. The host functions test each
 * argument's type with the engine's own checks and never convert an object, so no script code
 * runs while a host function is on the stack.
 */

/**
 * The host functions, each named `codemode.<name>` inside QuickJS and held by the prelude in
 * closures only. The prelude calls them through this type (prelude/host.ts); the engine
 * implements them through it (engine/host/bridge.ts), so renaming one, or changing what it takes
 * or gives, fails to compile on the side that did not follow.
 *
 * A host function given anything but the primitives it takes returns HOST_REFUSED and does
 * nothing (the prelude never does that; a script that somehow held one would get nothing).
 */
export interface HostFunctions {
  /** Checks the arguments against their caps and sends the call: the call's id, or what to throw when past a cap. */
  readonly send: (tool: string, argsJson: string) => number | string;
  /** As `send`, for a call of a built-in API (`call` one of API_CALLS in protocol/contract.ts: `resources`, `store`/`load`). */
  readonly sendApi: (call: string, argsJson: string) => number | string;
  /** '' when the arguments are within the caps, else what to throw. */
  readonly checkArgs: (argsJson: string) => string;
  /** Output, batched to the parent. */
  readonly out: (text: string) => void;
  /** '' when sent, NOTIFY_SKIPPED when too soon, else what to throw. */
  readonly notify: (payloadJson: string) => string;
  /** A host timer; the entry's `fire(id)` comes back when it is due. */
  readonly setTimer: (ms: number) => number;
  readonly clearTimer: (id: number) => void;
  /** searchTools' hits as JSON text (a list), or, for a query past its bounds, what to throw. */
  readonly search: (query: string, limit: number) => string;
  /** ` Closest: "a", "b".` or '', for "not a tool" messages. */
  readonly closest: (name: string) => string;
  /**
   * Sends content blocks (a JSON list the prelude built and checked) for the answer; '' when sent,
   * else what to throw (past showMaxBytes, or off).
   */
  readonly show: (blocksJson: string) => string;
  /**
   * A skill's TypeScript as JavaScript at the same lines, for the prelude to compile: JSON text of
   * `{"code": string}`, or `{"error": string}` (its syntax error). The engine has the stripper
   * loaded by the time a `skills.get` answer is delivered.
   */
  readonly stripTypes: (code: string) => string;
}
export type HostFunctionName = keyof HostFunctions;

/**
 * `L` when it names every key of `T`, else a one-item list naming what it misses: a list
 * assigned to this type can't drift from the interface it lists (an unknown name fails `L`'s
 * constraint, a missing one the assignment).
 */
type EveryKey<T, L extends readonly (keyof T)[]> = [Exclude<keyof T, L[number]>] extends [never]
  ? L
  : readonly [`missing: ${Exclude<keyof T, L[number]> & string}`];

const hostFunctionNames = [
  'send',
  'sendApi',
  'checkArgs',
  'out',
  'notify',
  'setTimer',
  'clearTimer',
  'search',
  'closest',
  'show',
  'stripTypes',
] as const;
/** Every host function's name, for the loops that hand them over (the engine) and take them (the prelude). */
export const HOST_FUNCTIONS: EveryKey<HostFunctions, typeof hostFunctionNames> = hostFunctionNames;

/** What a host function returns for arguments it does not take. */
export const HOST_REFUSED = 'codemode: a host function was called with arguments it does not take';

/** notify() came too soon after the previous one and was skipped. */
export const NOTIFY_SKIPPED = 'skipped';

/**
 * How a call's answer reaches the script (the protocol's ResultKind, and `release`):
 * ok: the payload is the tool's result as JSON; refused: ToolRefused, nothing was sent;
 * timeout: TimeoutError, the place stays held; too_large: ResultTooLarge, the call took effect;
 * release: a timed-out call's tool has answered, and its place is free.
 */
export const DELIVERY = {
  ok: 'ok',
  refused: 'refused',
  timeout: 'timeout',
  tooLarge: 'too_large',
  release: 'release',
} as const;
export type Delivery = (typeof DELIVERY)[keyof typeof DELIVERY];

/**
 * The entry methods, on the object `install` returns (held by the engine as a handle, never on a
 * global). The prelude's entry object `satisfies` this type (prelude/index.ts); the engine calls
 * each method by a name of it, with as many arguments as it takes (engine/prelude-entry.ts).
 */
export interface EntryMethods {
  /**
   * Parses the catalog and makes its tools ready; in a pooled child while it waits for its
   * script, and again for each catalog the parent sends before the start.
   */
  readonly catalog: (toolsJson: string) => void;
  /**
   * Seeds Math.random and installs `tools`, `ALL_TOOLS`, `describe` and `searchTools` for the last
   * catalog given (names under an `unlisted` prefix are callable too: the server refuses them).
   * The engine then compiles and calls the script's body itself.
   */
  readonly start: (unlistedJson: string, seed0: number, seed1: number, seed2: number, seed3: number) => void;
  /** A call's answer. */
  readonly deliver: (id: number, kind: Delivery, payload: string) => void;
  /** A host timer is due. */
  readonly fire: (timerId: number) => void;
  /** 1 while calls or timers the script waits on remain, else 0. */
  readonly busy: () => number;
  /** Calls made but never sent, as JSON text of {tool: count}. */
  readonly unsent: () => string;
  /** The script's value as JSON text, once; a value JSON can't hold becomes a JSON string that says so. */
  readonly valueJson: (value: unknown) => string;
  /** Any value as the script would see it printed; errors with the script's own frames only. */
  readonly format: (value: unknown) => string;
}
export type EntryMethod = keyof EntryMethods;

const entryMethodNames = ['catalog', 'start', 'deliver', 'fire', 'busy', 'unsent', 'valueJson', 'format'] as const;
/** Every entry method's name, for the engine, which takes a handle on each once. */
export const ENTRY_METHODS: EveryKey<EntryMethods, typeof entryMethodNames> = entryMethodNames;

/** The limits the prelude enforces, given to `install` once (at build time, in the snapshot). */
export interface PreludeLimits {
  readonly callsInFlightMax: number;
  readonly argsMaxBytes: number;
  readonly valueMaxChars: number;
  readonly notifyPayloadMaxChars: number;
  /** The script's file name in stack frames. */
  readonly scriptFile: string;
  /** Columns the wrapper adds to line 1 of the script. */
  readonly scriptLine1Offset: number;
}
