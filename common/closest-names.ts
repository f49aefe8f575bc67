import { editDistance } from './edit-distance.js';

/**
 * 2: a name is offered as "did you mean" when it is within this many edits of the one asked for
 * (an insertion, a deletion or a substitution of one character, case ignored): `comand` →
 * `command`, `yieldMS` → `yieldMs`, `ecko` → `echo`. Further off, a guess misleads more than it helps.
 */
const CLOSE_MAX_EDITS = 2;

/**
 * 256: the longest name a closest name is looked for; a longer one gets none. An edit distance
 * costs the product of the two lengths, and a name from a script or a client can be a megabyte; a
 * candidate is compared only when its length is within CLOSE_MAX_EDITS of the name's.
 */
const CLOSE_MAX_CHARS = 256;

/** Up to `limit` of `names` within two edits of `wanted` (case ignored), nearest first, then in the order given. */
export function closestNames(wanted: string, names: readonly string[], limit: number): string[] {
  if (wanted.length > CLOSE_MAX_CHARS) return [];
  const lower = wanted.toLowerCase();
  const close: { name: string; distance: number }[] = [];
  for (const name of names) {
    // The distance is at least the difference in length: a name far longer or shorter costs nothing to pass over.
    if (Math.abs(name.length - wanted.length) > CLOSE_MAX_EDITS) continue;
    const distance = editDistance(lower, name.toLowerCase());
    if (distance <= CLOSE_MAX_EDITS) close.push({ name, distance });
  }
  return close
    .sort((a, b) => a.distance - b.distance)
    .slice(0, limit)
    .map((scored) => scored.name);
}

/** The one name closest to `wanted` within two edits, or null: for `did you mean "..."?`. */
export function closestName(wanted: string, names: readonly string[]): string | null {
  return closestNames(wanted, names, 1)[0] ?? null;
}

/** ` Closest: "a", "b".` (up to three names), or '' when nothing is close. */
export function closestHint(wanted: string, names: readonly string[]): string {
  const closest = closestNames(wanted, names, 3);
  return closest.length > 0 ? ` Closest: ${closest.map((name) => JSON.stringify(name)).join(', ')}.` : '';
}
