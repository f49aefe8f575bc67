/**
 * What a finder reports: a stretch of a text to replace by a token, its label, and the value the
 * token will stand for (the stretch itself, or a JSON literal's value for a field in JSON text).
 */
import type { TokenValue } from './token-text.js';

export interface Found {
  readonly start: number;
  readonly end: number;
  readonly label: string;
  readonly value: TokenValue;
  /**
   * The stretch is a JSON number: its token is written between these quotes (`"`, or `\\"` in JSON
   * text inside a JSON string), so the JSON stays JSON.
   */
  readonly quote?: string;
}

/**
 * Whether the character at `i` ends an escape, so nothing before it joins what follows: endsEscape
 * for a text toward the client, which may hold JSON; NO_ESCAPES for a value's strings, which hold
 * what they say (a backslash in one is a backslash).
 */
export type EscapeEnds = (text: string, i: number) => boolean;
export const NO_ESCAPES: EscapeEnds = () => false;

/** Adds what it finds in `text` to `found`, in any order; overlaps are settled by the caller. */
export type Finder = (text: string, found: Found[], escapeEnds: EscapeEnds) => void;

/**
 * The finds that don't overlap, in order: the earliest first, the longer of two that start
 * together, and nothing that overlaps one kept or a token already in the text (`taken`).
 */
export function settleOverlaps(found: Found[], taken: readonly { start: number; end: number }[]): Found[] {
  if (found.length === 0) return found;
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Found[] = [];
  let reached = 0;
  let t = 0;
  for (const one of found) {
    if (one.start < reached) continue;
    while (t < taken.length && taken[t]!.end <= one.start) t++;
    if (t < taken.length && taken[t]!.start < one.end) continue;
    kept.push(one);
    reached = one.end;
  }
  return kept;
}

const BACKSLASH = 92;
const isHexDigit = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** Whether `text[i]` is a backslash that escapes what follows: an odd run of them ends at `i`. */
function escapes(text: string, i: number): boolean {
  let run = 0;
  while (i - run >= 0 && text.charCodeAt(i - run) === BACKSLASH) run++;
  return run % 2 === 1;
}

/**
 * Whether `text[i]` ends a JSON escape (`\n`, `\t`, `\"`, `\\`, `\u00e9`): in the JSON text of
 * a value the `n` of `\n` is no part of a word, so what follows it stands alone (`\nada@x.org` is
 * `ada@x.org` after a line break, `\t+1 415 555 0143` a number after a tab).
 */
export function endsEscape(text: string, i: number): boolean {
  if (i >= 1 && escapes(text, i - 1)) return true;
  if (i < 5 || text.charCodeAt(i - 4) !== 117 || !escapes(text, i - 5)) return false;
  for (let k = i - 3; k <= i; k++) if (!isHexDigit(text.charCodeAt(k))) return false;
  return true;
}
