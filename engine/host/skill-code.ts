import { stripTypes, typeStripperLoaded } from '../strip-types.js';

/**
 * `stripTypes`: a skill's TypeScript as JavaScript, as JSON text of `{code}` or `{error}`. The
 * skill runs in the calling script's VM, so its types are stripped here, in the script's child,
 * as the script's own are; ScriptRun holds a `skills.get` answer until the stripper is loaded.
 */
export function stripSkillTypes(code: string): string {
  if (!typeStripperLoaded()) return JSON.stringify({ error: 'the TypeScript stripper is not loaded in this child' });
  return JSON.stringify(stripTypes(code));
}
