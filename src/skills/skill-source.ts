/**
 * The skills library as the MCP Skills extension's source (SEP-2640, the SDK's `SkillsExtension`):
 * `skills/list` and `skills/get` answer from the folders as they are at that moment, a
 * `skill://<name>/<file>` read gives the file's text, and `resources/list` names each SKILL.md. Folders that are not usable skills are left
 * out, each logged once with what is wrong.
 */
import { SkillsExtension, type Skill, type SkillReadResult, type SkillSource } from '@modelcontextprotocol/server/ext/skills';
import { Logger, type Log } from '../support/log.js';
import { SkillError } from './skill-error.js';
import {
  CODE_FILES,
  SKILL_BASE_URI,
  SKILL_MANIFEST,
  type SkillProblem,
  type SkillRecord,
  type SkillsLibrary,
} from './skills-library.js';

const MIME_TYPES: Readonly<Record<string, string>> = {
  [SKILL_MANIFEST]: 'text/markdown',
  [CODE_FILES.typescript]: 'text/typescript',
  [CODE_FILES.javascript]: 'text/javascript',
};

const SKILL_URI = /^skill:\/\/([^/?#]+)\/([^/?#]+)$/;

/**
 * The extension serving `library`, and the upstreams' skills after it (`upstreams`), once per
 * server (every session attaches it); problems go to `log` at warn.
 */
export function skillsExtensionOf(library: SkillsLibrary, log: Log, upstreams?: UpstreamSkills): SkillsExtension {
  const logger = Logger.of(log);
  const own = librarySkillSource(library, logger);
  return new SkillsExtension({
    source: upstreams === undefined ? own : withUpstreamSkills(own, upstreams),
    onWarning: (warning) => logger.warn(`skill ${warning.path}: ${warning.message}`),
  });
}

/**
 * The upstreams' skills (src/upstream/passthrough/skill-routes.ts), and when they may be asked: once the
 * upstreams have started (or the startup wait is over).
 */
export interface UpstreamSkills {
  readonly routes: {
    /** Their skills whose URIs are not in `taken`. */
    list(taken: ReadonlySet<string>): Promise<readonly Skill[]>;
    get(uri: string): Promise<Skill | undefined>;
    read(uri: string): Promise<SkillReadResult | undefined>;
  };
  readonly startup: () => Promise<void>;
}

/** Our skills first; an upstream's where ours has none at the URI (skill-routes.ts leaves out a URI ours serve). */
function withUpstreamSkills(own: SkillSource, { routes, startup }: UpstreamSkills): SkillSource {
  return {
    async list(params, ctx) {
      const page = await own.list(params, ctx);
      if (params.cursor !== undefined || page.nextCursor !== undefined) return page;
      await startup();
      const theirs = await routes.list(new Set(page.skills.map((skill) => skill.uri)));
      return { skills: [...page.skills, ...theirs] };
    },
    async get(uri, ctx) {
      const ours = await own.get(uri, ctx);
      if (ours !== undefined) return ours;
      await startup();
      return await routes.get(uri);
    },
    async read(uri, ctx) {
      const ours = await own.read(uri, ctx);
      if (ours !== undefined) return ours;
      await startup();
      return routes.read(uri);
    },
    ...(own.listResources !== undefined ? { listResources: own.listResources.bind(own) } : {}),
  };
}

function librarySkillSource(library: SkillsLibrary, log: Logger): SkillSource {
  const reported = new Set<string>();
  const logOnce = (text: string): void => {
    if (reported.has(text)) return;
    reported.add(text);
    log.warn(text);
  };
  const report = (problems: readonly SkillProblem[]): void => {
    for (const { name, problems: why } of problems) {
      logOnce(`skill folder "${name}" in ${library.directory} is not served: ${why.join('; ')}`);
    }
  };
  /** The skill a `skill://` URI names, or undefined when none is served there. */
  const recordAt = async (uri: string): Promise<{ record: SkillRecord; file: string } | undefined> => {
    const match = SKILL_URI.exec(uri);
    if (match === null || !uri.startsWith(SKILL_BASE_URI)) return undefined;
    const [, name = '', file = ''] = match;
    try {
      return { record: await library.read(name), file };
    } catch (error) {
      if (!(error instanceof SkillError)) throw error;
      if (error.code === 'SKILL_INVALID') logOnce(error.message);
      return undefined;
    }
  };
  return {
    async list() {
      const { skills, problems } = await library.readAll();
      report(problems);
      return { skills: skills.map((skill) => skill.entry) };
    },
    async get(uri) {
      const found = await recordAt(uri);
      return found?.file === SKILL_MANIFEST ? found.record.entry : undefined;
    },
    // Each SKILL.md is listed with the skill's name and description, as the extension recommends.
    async listResources() {
      const { skills, problems } = await library.readAll();
      report(problems);
      return skills.map((skill) => ({
        uri: skill.entry.uri,
        name: skill.name,
        description: skill.description,
        mimeType: MIME_TYPES[SKILL_MANIFEST],
      }));
    },
    async read(uri): Promise<SkillReadResult | undefined> {
      const found = await recordAt(uri);
      const bytes = found?.record.files.get(found.file);
      if (found === undefined || bytes === undefined) return undefined;
      const mimeType = MIME_TYPES[found.file] ?? 'text/plain';
      try {
        return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes), mimeType };
      } catch {
        // Not UTF-8: the bytes as they are, so the client's digest check holds.
        return { bytes, mimeType };
      }
    },
  };
}
