import { groupThousands } from '../../common/format-numbers.js';

/**
 * How the server quotes back what a client (or an upstream) sent: a refusal names the script id,
 * tool name or action it got, but never hands a megabyte back.
 */

/** 200: the most characters of client input a message quotes; past it the quote is cut and says the length. */
export const ECHO_MAX_CHARS = 200;

/**
 * Characters that act on what a person reads instead of showing: the C0 and C1 controls and DEL
 * (ESC starts a terminal's escape sequences; CR, NEL and the rest move or end the line), the bidi
 * controls that reorder what follows them (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to
 * U+2069), and the line and paragraph separators (U+2028, U+2029).
 */
// eslint-disable-next-line no-control-regex -- finding control characters is what it is for
const ACTING_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/** Escapes a person knows on sight, for the commonest controls; the rest are written `\uXXXX`. */
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` as a person must read it when an upstream, a script or a client wrote it: every acting
 * character (ACTING_CHARACTERS) written as a visible escape (`\n`, `\u001b`, `\u202e`), so that no
 * text of theirs can add a line, recolour a terminal or reorder what is shown. `lines`: for text
 * that is several lines by design (a log line, a tool's declaration), newlines and tabs stay.
 * JSON text stays JSON meaning the same: acting characters can only stand inside its strings,
 * where the escapes are JSON's own.
 */
export function revealControls(text: string, keep: 'lines' | 'nothing' = 'nothing'): string {
  return text.replace(ACTING_CHARACTERS, (c) => {
    if (keep === 'lines' && (c === '\n' || c === '\t')) return c;
    return SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/**
 * `"get-sum"`, or for long input `"abc…" (1,000,000 characters)`: JSON-quoted and every acting
 * character escaped (revealControls), so controls, bidi marks and quotes stay visible, cut to
 * ECHO_MAX_CHARS with the original length.
 */
export function quoteInput(text: string): string {
  if (text.length <= ECHO_MAX_CHARS) return revealControls(JSON.stringify(text));
  return `${revealControls(JSON.stringify(`${text.slice(0, ECHO_MAX_CHARS)}…`))} (${groupThousands(text.length)} characters)`;
}

/**
 * What a value is, in a word, as JSON names it: `string`, `number`, `boolean`, `null`, `array`,
 * `object` (past JSON, its typeof: `undefined`, `function`, ...). The one classification the
 * describers below and every "must be X (got Y)" share.
 */
export function valueType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** The same with its article, for "got a boolean": `a string`, `an array`, `null`, `nothing` for undefined. */
export function describeType(value: unknown): string {
  const type = valueType(value);
  if (type === 'undefined') return 'nothing';
  if (type === 'null') return type;
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

/** A string quoted (and cut), anything else by its type: `"2h"`, `a boolean`, `null`. */
export function describeFound(value: unknown): string {
  return typeof value === 'string' ? quoteInput(value) : describeType(value);
}

/** A phrase for any value a client sent where something else was expected: `"run!"`, `an object`, `number 1.5`, `nothing`. */
export function describeInput(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`;
  return describeFound(value);
}

/** `request 7 ("tools/call")`, for a log line: the id and method as the client sent them, quotes cut. */
export function requestLabel(id: string | number | undefined, method: unknown): string {
  return `request ${id === undefined ? 'without a readable id' : showId(id)}${method === undefined ? '' : ` (${describeInput(method)})`}`;
}

/** A request id as the client sent it: a number as it is, a string quoted and cut. */
export function showId(id: string | number): string {
  return typeof id === 'string' ? quoteInput(id) : String(id);
}
