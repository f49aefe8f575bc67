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
 * closures only. Their arguments, in order:
 *
 * - `send(tool: string, argsJson: string) → number | string`: checks the arguments against their
 *   caps and sends the call; the call's id, or what to throw when the arguments are past a cap.
 * - `sendResource(call: string, argsJson: string) → number | string`: as `send`, for a call of
 *   the `resources` API (`call` one of RESOURCE_CALLS in protocol/contract.ts).
 * - `checkArgs(argsJson: string) → string`: '' when within the caps, else what to throw.
 * - `out(text: string)`: output, batched to the parent.
 * - `notify(payloadJson: string) → string`: '' when sent, NOTIFY_SKIPPED when too soon, else
 *   what to throw.
 * - `setTimer(ms: number) → number` and `clearTimer(id: number)`: host timers; `fire(id)` comes
 *   back when one is due.
 * - `search(query: string, limit: number) → string`: searchTools' hits as JSON text (a list), or,
 *   for a query past its bounds, what to throw.
 * - `closest(name: string) → string`: ` Closest: "a", "b".` or '', for "not a tool" messages.
 * - `show(blocksJson: string) → string`: sends content blocks (a JSON list the prelude built
 *   and checked) for the answer; '' when sent, else what to throw (past showMaxBytes, or off).
 *
 * A host function given anything but the primitives it takes returns HOST_REFUSED and does
 * nothing (the prelude never does that; a script that somehow held one would get nothing).
 */
export const HOST_FUNCTIONS = [
  'send',
  'sendResource',
  'checkArgs',
  'out',
  'notify',
  'setTimer',
  'clearTimer',
  'search',
  'closest',
  'show',
] as const;
export type HostFunctionName = (typeof HOST_FUNCTIONS)[number];

/** What a host function returns for arguments it does not take. */
export const HOST_REFUSED = 'codemode: a host function was called with arguments it does not take';

/** notify() came too soon after the previous one and was skipped. */
export const NOTIFY_SKIPPED = 'skipped';

/**
 * The entry methods, on the object `install` returns (held by the engine as a handle, never on a
 * global):
 *
 * - `catalog(toolsJson: string)`: parses the catalog and makes its tools ready; in a pooled child
 *   while it waits for its script, and again for each catalog the parent sends before the start.
 * - `start(unlistedJson: string, seed0..seed3: number)`: seeds Math.random and installs `tools`,
 *   `ALL_TOOLS`, `describe` and `searchTools` for the last catalog given (names under an
 *   `unlisted` prefix are callable too: the server refuses them). The engine then compiles and
 *   calls the script's body itself.
 * - `deliver(id: number, kind: Delivery, payload: string)`: a call's answer.
 * - `fire(timerId: number)`: a host timer is due.
 * - `busy() → number`: 1 while calls or timers the script waits on remain, else 0.
 * - `unsent() → string`: calls made but never sent, as JSON text of {tool: count}.
 * - `valueJson(value) → string`: the script's value as JSON text, once; a value JSON can't hold
 *   becomes a JSON string that says so.
 * - `format(value) → string`: any value as the script would see it printed; errors with the
 *   script's own frames only.
 */
export const ENTRY_METHODS = ['catalog', 'start', 'deliver', 'fire', 'busy', 'unsent', 'valueJson', 'format'] as const;
export type EntryMethod = (typeof ENTRY_METHODS)[number];

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
