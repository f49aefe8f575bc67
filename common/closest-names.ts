import { editDistance } from './edit-distance.js';

/** Up to `limit` names closest to `wanted`: substring matches first, then by edit distance. */
export function closestNames(wanted: string, names: readonly string[], limit = 3): string[] {
  const lower = wanted.toLowerCase();
  return names
    .map((name) => {
      const candidate = name.toLowerCase();
      const contains = candidate.includes(lower) || lower.includes(candidate);
      return { name, score: (contains ? 0 : 1000) + editDistance(lower, candidate) };
    })
    .filter((scored) => scored.score < 1000 || scored.score - 1000 <= Math.max(3, lower.length / 2))
    .sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : 1))
    .slice(0, limit)
    .map((scored) => scored.name);
}

/** ` Closest: "a", "b".` or '' when nothing is close. */
export function closestHint(wanted: string, names: readonly string[]): string {
  const closest = closestNames(wanted, names);
  return closest.length > 0 ? ` Closest: ${closest.map((name) => JSON.stringify(name)).join(', ')}.` : '';
}
