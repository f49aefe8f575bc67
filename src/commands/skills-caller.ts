import type { SkillsCaller } from '../script-host/types.js';
import { SkillError } from '../skills/skill-error.js';
import { CODE_FILES, type SkillLanguage, type SkillsLibrary } from '../skills/skills-library.js';
import type { Settings, TypeCheckMode } from '../config/settings.js';
import type { CatalogTool } from '../catalog/types.js';
import type { Log } from '../support/log.js';
import type { ScriptChecker, SkillSource } from '../typecheck/script-checker.js';

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

/** The type check of a skill's code when it is saved (issue 47): the checker, the catalog scripts see now, the mode. */
export interface SkillTypeCheck {
  readonly checker: Pick<ScriptChecker, 'checkSkill'>;
  readonly catalog: () => readonly CatalogTool[];
  /** The prefixes of upstreams that have not listed their tools yet (hub.unlistedPrefixes). */
  readonly unlisted?: () => readonly string[];
  readonly mode: TypeCheckMode;
}

/**
 * A script's `skills` calls, answered from the skills library: every call reads the folders
 * again, so a skill edited by hand is what the next script gets. What each gives the script's
 * prelude is src/script-host/types.ts's SkillsCaller. With `typeCheck`, a save whose code the
 * check refuses is refused, and nothing is written.
 */
export function skillsCaller(library: SkillsLibrary, saving: SkillSaving, log: Log, typeCheck?: SkillTypeCheck): SkillsCaller {
  const answer = answerFrom(library, saving, log, typeCheck);
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
  if (error instanceof SkillError) return new SkillError(error.code, message.slice(`${error.code}: `.length));
  return new Error(message, { cause: error });
}

/**
 * What the type check says of a skill's code: nothing, or the refusal (`SKILL_TYPE_CHECK`) with
 * the check's text. `checkSkill` is also what a skill's call should pass (see the report of issue
 * 47: the call's `skills.get` is the describe's too, so it is not checked here).
 */
export async function refuseIfTypeCheckFails(
  typeCheck: SkillTypeCheck,
  name: string,
  skill: SkillSource,
  what: string,
): Promise<void> {
  const outcome = await typeCheck.checker.checkSkill(skill, typeCheck.catalog(), {
    mode: typeCheck.mode,
    unlisted: typeCheck.unlisted?.() ?? [],
  });
  if (outcome.kind === 'refused' || outcome.kind === 'too-slow') {
    throw new SkillError('SKILL_TYPE_CHECK', `skill "${name}" ${what}: ${outcome.text}`);
  }
}

function answerFrom(library: SkillsLibrary, saving: SkillSaving, log: Log, typeCheck: SkillTypeCheck | undefined): SkillsCaller {
  return async (request) => {
    switch (request.call) {
      case 'skills.list': {
        const { skills } = await library.list();
        return skills.map(({ name, description }) => ({ name, description }));
      }
      case 'skills.get': {
        const skill = await library.read(request.name);
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
        if (typeCheck !== undefined) {
          const language = (request.language ?? 'typescript') as SkillLanguage;
          const inputSchema = request.inputSchema;
          await refuseIfTypeCheckFails(
            typeCheck,
            request.name,
            { code: request.code, language, ...(inputSchema !== undefined ? { inputSchema } : {}) },
            'was not saved (nothing was written)',
          );
        }
        const saved = await library.save({
          name: request.name,
          description: request.description,
          code: request.code,
          ...(request.language !== undefined ? { language: request.language as SkillLanguage } : {}),
          ...(request.inputSchema !== undefined ? { inputSchema: request.inputSchema } : {}),
          ...(request.overwrite !== undefined ? { overwrite: request.overwrite } : {}),
        });
        log(`codemode-mcp: skill "${saved.name}" saved by ${saving.principal} (${saved.digest})`, 'info');
        return { name: saved.name, description: saved.description, digest: saved.digest };
      }
    }
  };
}

/**
 * Whether an HTTP session's scripts may save skills: a skill is code every session's scripts may
 * then run, and the bearer token names no one, so only when the config says so.
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
