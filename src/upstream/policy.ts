import type { ToolPolicy } from './spec.js';

/** True when the policy lets scripts call the tool named `tool` (its own name, not the prefixed one). */
export function isToolAllowed(policy: ToolPolicy, tool: string): boolean {
  const allowed = policy.allow === undefined || policy.allow.some((glob) => matchesGlob(glob, tool));
  return allowed && !(policy.deny ?? []).some((glob) => matchesGlob(glob, tool));
}

/** `*` is any run of characters, `?` any one character; everything else matches itself, case and all. */
export function matchesGlob(glob: string, name: string): boolean {
  const pattern = [...glob]
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`, 'su').test(name);
}
