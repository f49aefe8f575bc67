/**
 * The scripts' `skills` API over the skills library: what a script may save, under which names,
 * and what it is told (no path on the server's disk).
 */
import type { SkillsCaller } from '../script-host/apis.js';
import { SkillError } from './skill-error.js';
import { CODE_FILES, type SkillLanguage, type SkillsLibrary } from './skills-library.js';
import type { Settings } from '../config/settings.js';
import { Logger, type Log } from '../support/log.js';

/**
 * The names `skills` itself answers in a script (`skills.list()`, `skills.describe(name)`,
 * `skills.save(...)`, `skills.call(name, input)`): a script can't save a skill under one, as
 * `skills.<name>` would never reach it. A folder of that name written by hand is still called
 * with `skills.call(name, input)`.
 */
export const RESERVED_SKILL_NAMES: readonly string[] = ['list', 'describe', 'save', 'call'];

/** Whether this caller's scripts may save: who they are, for the log, or why not, for the refusal. */
export type SkillSaving =
  { readonly allowed: true; readonly principal: string } | { readonly allowed: false; readonly why: string };

/** A skill's code as the type check reads it: its language, and its `input`'s schema. */
export interface SkillCode {
  readonly code: string;
  readonly language: SkillLanguage;
  readonly inputSchema?: Readonly<Record<string, unknown>>;
}

/**
 * The type check of a skill's code against the tools scripts see now (issue 47; bound to the
 * checker by src/mcp/host-apis.ts): the refusal's text when the check refuses it, else undefined.
 */
export type SkillCheck = (skill: SkillCode) => Promise<string | undefined>;

/**
 * A script's `skills` calls, answered from the skills library: every call reads the folders
 * again, so a skill edited by hand is what the next script gets. What each gives the script's
 * prelude is src/script-host/apis.ts's SkillsCaller. With `check`, a skill is type-checked when
 * saved (refused, nothing written) and when fetched to run (refused, nothing ran): a skill edited
 * by hand, or saved before a tool it calls changed, is checked as it is now.
 */
export function skillsApi(library: SkillsLibrary, saving: SkillSaving, log: Log, check?: SkillCheck): SkillsCaller {
  const answer = answerFrom(library, saving, log, check);
  return async (request, signal) => {
    try {
      return await answer(request, signal);
    } catch (error) {
      throw withoutDirectory(error, library.directory);
    }
  };
}

/**
 * What a script is told names no path on the server's disk (a script may be an HTTP client's):
 * the library's own words, with its directory said as "the skills directory". The CLI, for the
 * person at the machine, keeps the path.
 */
function withoutDirectory(error: unknown, directory: string): unknown {
  if (!(error instanceof Error) || !error.message.includes(directory)) return error;
  const message = error.message.replaceAll(directory, 'the skills directory');
  if (error instanceof SkillError) return new SkillError(error.code, error.text.replaceAll(directory, 'the skills directory'));
  return new Error(message, { cause: error });
}

/** Throws the check's refusal as SKILL_TYPE_CHECK, saying what became of the skill (`was not saved`). */
async function refuseIfCheckFails(check: SkillCheck | undefined, name: string, skill: SkillCode, outcome: string): Promise<void> {
  const refusal = await check?.(skill);
  if (refusal !== undefined) throw new SkillError('SKILL_TYPE_CHECK', `skill "${name}" ${outcome}: ${refusal}`);
}

function answerFrom(library: SkillsLibrary, saving: SkillSaving, log: Log, check: SkillCheck | undefined): SkillsCaller {
  return async (request) => {
    switch (request.call) {
      case 'skills.list': {
        const { skills } = await library.list();
        return skills.map(({ name, description }) => ({ name, description }));
      }
      case 'skills.get': {
        const skill = await library.read(request.name);
        // Fetched to run (not to describe): checked against the tools scripts see, as a script is.
        if (request.run === true) await refuseIfCheckFails(check, skill.name, skill, 'was not run');
        return {
          name: skill.name,
          description: skill.description,
          language: skill.language,
          code: skill.code,
          ...(skill.inputSchema !== undefined ? { inputSchema: skill.inputSchema } : {}),
        };
      }
      case 'skills.save': {
        if (!saving.allowed) throw new SkillError('SKILL_SAVE_REFUSED', `skill "${request.name}" was not saved: ${saving.why}`);
        if (RESERVED_SKILL_NAMES.includes(request.name)) {
          throw new SkillError(
            'SKILL_NAME_INVALID',
            `"${request.name}" is one of skills' own calls (${RESERVED_SKILL_NAMES.join(', ')}): choose another name; nothing was written`,
          );
        }
        if (request.language !== undefined && !Object.hasOwn(CODE_FILES, request.language)) {
          throw new SkillError(
            'SKILL_SAVE_INVALID',
            `skill "${request.name}": language must be ${Object.keys(CODE_FILES).join(' or ')}; got ${JSON.stringify(request.language)}; nothing was written`,
          );
        }
        const language = (request.language ?? 'typescript') as SkillLanguage;
        const { inputSchema } = request;
        await refuseIfCheckFails(
          check,
          request.name,
          { code: request.code, language, ...(inputSchema !== undefined ? { inputSchema } : {}) },
          'was not saved (nothing was written)',
        );
        const saved = await library.save({
          name: request.name,
          description: request.description,
          code: request.code,
          ...(request.language !== undefined ? { language: request.language as SkillLanguage } : {}),
          ...(request.inputSchema !== undefined ? { inputSchema: request.inputSchema } : {}),
          ...(request.overwrite !== undefined ? { overwrite: request.overwrite } : {}),
        });
        Logger.of(log).info(`skill "${saved.name}" saved by ${saving.principal} (${saved.digest})`);
        return { name: saved.name, description: saved.description, digest: saved.digest };
      }
    }
  };
}

/**
 * Whether an HTTP client's scripts may save skills (`who`: its session or principal): a skill is
 * code every caller's scripts may then run, so only when the config says so.
 */
export function httpSaving(settings: Pick<Settings, 'skillsSaveOverHttp'>, who: string): SkillSaving {
  if (settings.skillsSaveOverHttp) return { allowed: true, principal: who };
  return {
    allowed: false,
    why: 'saving skills over HTTP is off (a skill is code every session may then run); the config file\'s setting "skillsSaveOverHttp": true allows it',
  };
}

/** The saved skills by name and description, for the code_execution description. */
export function savedSkillsOf(library: SkillsLibrary): () => Promise<readonly { name: string; description: string }[]> {
  return async () => (await library.list()).skills.map(({ name, description }) => ({ name, description }));
}
