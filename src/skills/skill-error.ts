import { RefusedError } from '../support/errors.js';

export type SkillErrorCode =
  /** The name breaks the Agent Skills rules (skill-name.ts); nothing was touched. */
  | 'SKILL_NAME_INVALID'
  /** A save over a skill that exists, without `overwrite: true`. */
  | 'SKILL_EXISTS'
  /** No folder of that name in the skills directory. */
  | 'SKILL_UNKNOWN'
  /** The skill's files are there but can't be used as they are (SkillProblem says what). */
  | 'SKILL_INVALID'
  /** A save's other fields: an empty description, code that isn't a string, a schema that isn't an object. */
  | 'SKILL_SAVE_INVALID'
  /** A script's save where saving isn't allowed (over HTTP unless the config allows it). */
  | 'SKILL_SAVE_REFUSED'
  /** The skill's code failed the type check against the tools' types (src/typecheck/): not saved, or not run. */
  | 'SKILL_TYPE_CHECK';

/** A skill operation refused or failed, with what to do in the message; a script sees it as ToolRefused, in these words. */
export class SkillError extends RefusedError {
  override readonly name = 'SkillError';
  declare readonly code: SkillErrorCode;

  constructor(code: SkillErrorCode, text: string) {
    super(code, text);
  }
}
