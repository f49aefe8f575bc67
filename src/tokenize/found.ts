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

/** Adds what it finds in `text` to `found`, in any order; overlaps are settled by the caller. */
export type Finder = (text: string, found: Found[]) => void;

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
