import { JSException, type JSValueHandle } from 'quickjs-wasi';
import { formatBytes } from '../common/format-numbers.js';
import { SCRIPT_FILE, endedEarly, lineCount } from '../common/script-position.js';
import { ERROR_MAX_CHARS, VALUE_MAX_CHARS, type EndMessage } from '../protocol/contract.js';
import { readGuestString } from './guest-string.js';

/** How a script ended, before the engine adds how many answers it read. */
export type Ending = Omit<EndMessage, 't' | 'read'>;

export const STALLED = 'Stalled: the script awaits a promise that nothing can settle (no tool call, timer or job is left).';
export const NOT_A_BODY =
  'SyntaxError: the script closed the function it runs in (a stray "})"?); write it as the body of an async function';
const TOO_DEEP =
  'RangeError: the script went deeper than the engine can follow (Maximum call stack size exceeded outside its own limit); ' +
  'it could not go on';

/** A syntax error as the prelude prints it, with the line it names. */
const SYNTAX_ERROR_AT = new RegExp(`^SyntaxError: [^\\n]*\\n {4}at ${SCRIPT_FILE}:(\\d+):\\d+$`);

/**
 * The end message for `ending`, its error cut to ERROR_MAX_CHARS (saying so); its value goes after
 * the message's JSON. `reusable`: the engine is intact, so the child may take another script.
 */
export function endMessage(
  ending: Ending,
  read: number,
  reusable: boolean,
): { readonly message: EndMessage; readonly value: string | undefined } {
  const { value, ...rest } = ending;
  const error = rest.error;
  const cut = error !== undefined && error.length > ERROR_MAX_CHARS;
  return {
    message: {
      t: 'end',
      ...rest,
      read,
      ...(reusable ? { reusable: true } : {}),
      ...(cut ? { error: `${error.slice(0, ERROR_MAX_CHARS - 64)}… (cut: the error was ${error.length} characters)` } : {}),
    },
    value,
  };
}

/**
 * A string value's JSON when it is within VALUE_MAX_CHARS, quoted by V8 (the handle is then
 * disposed); else undefined, for the prelude, whose message says what to do. A string, the common
 * large value (a tool's text passed on), is quoted here because V8's JSON.stringify is much faster
 * than QuickJS's (bench/ANALYSIS.md), and a string primitive's JSON is its quoting whatever the
 * script did (no toJSON is consulted).
 */
export function quoteStringValue(value: JSValueHandle): string | undefined {
  if (!value.isString) return undefined;
  const json = JSON.stringify(readGuestString(value));
  if (json.length > VALUE_MAX_CHARS) return undefined;
  value.dispose();
  return json;
}

/**
 * A script's exception as the script would print it (`format`, the prelude's printing); the
 * engine's own words for out of memory, naming the memory it had.
 */
export function describeException(error: JSException, memoryMaxBytes: number, format: (error: JSValueHandle) => string): string {
  if (error.message === 'out of memory') {
    return `InternalError: out of memory: the script used all of its ${formatBytes(memoryMaxBytes)} (the server's memoryMaxBytes setting)`;
  }
  try {
    return format(error.handle.dup());
  } catch {
    return `${error.name}: ${error.message}`;
  }
}

/**
 * The failure an exception out of the VM means. `code`, when the exception came from compiling the
 * script: a syntax error at the wrapper's last line is the script ending early. `vmBroken`: V8's
 * own stack ran out inside the engine, so the VM was unwound mid-call and must not be entered again.
 * `engineSpent`: the child must not take another script (out of memory, V8's stack, an engine failure).
 */
export function failureOf(
  error: unknown,
  describe: (error: JSException) => string,
  code?: string,
): { readonly ending: Ending; readonly vmBroken: boolean; readonly engineSpent: boolean } {
  if (error instanceof JSException) {
    const described = describe(error);
    const wrapperLine = code === undefined ? undefined : lineCount(code) + 1;
    const at = SYNTAX_ERROR_AT.exec(described);
    const message = at !== null && Number(at[1]) === wrapperLine ? endedEarly(code!) : described;
    return { ending: { status: 'failed', error: message }, vmBroken: false, engineSpent: error.message === 'out of memory' };
  }
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return { ending: { status: 'failed', error: TOO_DEEP }, vmBroken: true, engineSpent: true };
  }
  process.stderr.write(`engine error: ${(error as Error)?.stack ?? String(error)}\n`);
  return {
    ending: { status: 'failed', error: "InternalError: the engine failed (the server's log has the details)" },
    vmBroken: false,
    engineSpent: true,
  };
}
