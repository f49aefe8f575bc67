/**
 * A skill's name, as the Agent Skills format and the MCP Skills extension (SEP-2640) require it:
 * the folder's own name, the `name` in its SKILL.md, and the last segment of its `skill://` URI.
 */
import { describeInput } from '../support/echo.js';

/** Longest name the Agent Skills format allows; a longer one is refused before anything is written. */
export const SKILL_NAME_MAX_CHARS = 64;

/**
 * What is wrong with `name` as a skill's name, naming the rule, the name given and what to do; null
 * when it is a good one. Checked before anything touches the filesystem, so a name can't reach
 * outside the skills directory (`..`, `/`) or make a folder the extension would refuse to serve.
 */
export function skillNameProblem(name: unknown): string | null {
  if (typeof name !== 'string') return `a skill's name must be a string; got ${describeInput(name)}`;
  const shown = JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
  const rule = `a skill's name is 1 to ${SKILL_NAME_MAX_CHARS} lowercase letters, digits and single hyphens, as in "summarize-issues"`;
  if (name.length === 0) return `${rule}; got an empty name`;
  if (name.length > SKILL_NAME_MAX_CHARS) return `${rule}; ${shown} has ${name.length} characters: shorten it`;
  if (/[A-Z]/.test(name) && /^[a-z0-9-]+$/.test(name.toLowerCase()))
    return `${rule}; ${shown} has capitals: use ${JSON.stringify(name.toLowerCase())}`;
  const bad = /[^a-z0-9-]/.exec(name);
  if (bad !== null) {
    const suggestion = suggestName(name);
    const hint = suggestion === null ? '' : `: use ${JSON.stringify(suggestion)}`;
    return `${rule}; ${shown} has ${JSON.stringify(bad[0])}${hint}`;
  }
  if (name.startsWith('-') || name.endsWith('-')) return `${rule}; ${shown} starts or ends with a hyphen: drop it`;
  if (name.includes('--')) return `${rule}; ${shown} has two hyphens in a row: use one`;
  return null;
}

/** The name a person likely meant (`My Skill_v2` → `my-skill-v2`), or null when nothing is left. */
function suggestName(name: string): string | null {
  const suggestion = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SKILL_NAME_MAX_CHARS)
    .replace(/-+$/, '');
  return suggestion === '' ? null : suggestion;
}
