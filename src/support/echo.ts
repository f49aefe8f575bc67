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

/** A phrase for any value a client sent where something else was expected: `"run!"`, `an object`, `number 1.5`, `nothing`. */
export function describeInput(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return quoteInput(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  // What is left of parsed JSON: a number or a boolean.
  return `${typeof value} ${value as number | boolean}`;
}

/** `request 7 ("tools/call")`, for a log line: the id and method as the client sent them, quotes cut. */
export function requestLabel(id: string | number | undefined, method: unknown): string {
  return `request ${id === undefined ? 'without a readable id' : showId(id)}${method === undefined ? '' : ` (${describeInput(method)})`}`;
}

/** A request id as the client sent it: a number as it is, a string quoted and cut. */
export function showId(id: string | number): string {
  return typeof id === 'string' ? quoteInput(id) : String(id);
}
