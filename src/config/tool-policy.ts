import type { ToolPolicy } from './types.js';

const REGEXP_SPECIAL = /[\\^$.+()[\]{}|/]/g;

/** `*` is any run of characters (none included), `?` one character; all else is literal. Whole name, case-sensitive. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (const c of glob) {
    if (c === '*') source += '[\\s\\S]*';
    else if (c === '?') source += '[\\s\\S]';
    else source += c.replace(REGEXP_SPECIAL, '\\$&');
  }
  return new RegExp(`^${source}$`, 'u');
}

export function matchesAnyGlob(globs: readonly string[], name: string): boolean {
  return globs.some((glob) => globToRegExp(glob).test(name));
}

/**
 * Allowed when `allow` is absent or matches, and `deny` does not match. `name`: the upstream's own
 * tool or prompt name, or a resource's URI (the `resources` policy).
 */
export function isAllowedBy(policy: ToolPolicy, name: string): boolean {
  if (policy.allow !== undefined && !matchesAnyGlob(policy.allow, name)) return false;
  return policy.deny === undefined || !matchesAnyGlob(policy.deny, name);
}
