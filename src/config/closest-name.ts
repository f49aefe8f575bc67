import { editDistance } from '../../common/edit-distance.js';

/** The candidate within two edits of `word` (ignoring case), if any: `comand` → `command`, `yieldMS` → `yieldMs`. */
export function findClosestName(word: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = 3;
  for (const candidate of candidates) {
    // The distance is at least the difference in length: a long name costs nothing to pass over.
    if (Math.abs(candidate.length - word.length) >= bestDistance) continue;
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}
