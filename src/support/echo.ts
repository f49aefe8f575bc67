import { groupThousands } from '../../common/format-numbers.js';

/**
 * How the server quotes back what a client (or an upstream) sent: a refusal names the script id,
 * tool name or action it got, but never hands a megabyte back.
 */

/** 200: the most characters of client input a message quotes; past it the quote is cut and says the length. */
export const ECHO_MAX_CHARS = 200;

/**
 * `"get-sum"`, or for long input `"abc…" (1,000,000 characters)`: JSON-quoted so control
 * characters and quotes stay visible, cut to ECHO_MAX_CHARS with the original length.
 */
export function quoteInput(text: string): string {
  if (text.length <= ECHO_MAX_CHARS) return JSON.stringify(text);
  return `${JSON.stringify(`${text.slice(0, ECHO_MAX_CHARS)}…`)} (${groupThousands(text.length)} characters)`;
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
