import { jsonStringify } from './intrinsics';

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

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** ` Closest: "a", "b".` or '' when nothing is close. */
export function closestHint(wanted: string, names: readonly string[]): string {
  const closest = closestNames(wanted, names);
  return closest.length > 0 ? ` Closest: ${closest.map((name) => jsonStringify(name)).join(', ')}.` : '';
}
