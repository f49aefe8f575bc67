/**
 * The skills library: one folder per skill under the skills directory, each `<name>/SKILL.md` and
 * `<name>/skill.ts` (or `skill.js`), files a person can read, edit and commit. Every list and read
 * goes to the disk again, so an edit by hand shows on the next one without a restart: a watcher
 * would hold a handle for the server's life and misses edits on some filesystems and editors'
 * rename-on-save, while rereading a few small files per skill costs less than the request that
 * asked. Writes go to a hidden folder first and are renamed into place, so a reader sees the old
 * skill, the new one or (for the moment of an overwrite) none, never half of one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SKILL_LIMITS, SkillCatalogError, skillEntry, type Skill } from '@modelcontextprotocol/server/ext/skills';
import { closestName } from '../../common/closest-names.js';
import { SkillError } from './skill-error.js';
import { bodyOf, readInputSchema, renderSkillMarkdown } from './skill-markdown.js';
import { skillNameProblem } from './skill-name.js';

export const SKILL_MANIFEST = 'SKILL.md';

/** The script body's file, by language; a skill has exactly one. */
export const CODE_FILES = { typescript: 'skill.ts', javascript: 'skill.js' } as const;
export type SkillLanguage = keyof typeof CODE_FILES;

/** The longest description the Agent Skills format allows. */
export const SKILL_DESCRIPTION_MAX_CHARS = 1024;

/** Where `skill://` URIs start: the extension's default base. */
export const SKILL_BASE_URI = 'skill://';

/** One skill in a listing. */
export interface SkillSummary {
  readonly name: string;
  readonly description: string;
  /** `sha256:<hex>` over the skill's files: their paths and the extension's digest of each (see `skillDigest`). */
  readonly digest: string;
}

/** A skill read whole. */
export interface SkillRecord extends SkillSummary {
  readonly frontmatter: Readonly<Record<string, unknown>>;
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  /** SKILL.md after its frontmatter. */
  readonly body: string;
  readonly code: string;
  readonly language: SkillLanguage;
  /** The skill as the Skills extension serves it: `skill://<name>/SKILL.md` and its files with digests. */
  readonly entry: Skill;
  /** Each file's bytes, by its path in the folder, as read for `entry`'s digests. */
  readonly files: ReadonlyMap<string, Uint8Array>;
}

/** A folder in the skills directory that is not a usable skill, and every reason why. */
export interface SkillProblem {
  /** The folder's name. */
  readonly name: string;
  readonly problems: readonly string[];
}

export interface SkillListing {
  /** By name. */
  readonly skills: readonly SkillSummary[];
  /** Folders that are not usable skills; they hide nothing else. */
  readonly problems: readonly SkillProblem[];
}

export interface SaveSkill {
  readonly name: string;
  readonly description: string;
  /** A script body, as code_execution runs one: `input` in scope, `return` gives the value. */
  readonly code: string;
  /** Default typescript (plain JavaScript is TypeScript too). */
  readonly language?: SkillLanguage;
  /** A JSON Schema object for `input`. */
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  /** SKILL.md's body; generated from the description when absent. */
  readonly body?: string;
  /** Replace a skill of that name; without it, a save over one fails. */
  readonly overwrite?: boolean;
}

export class SkillsLibrary {
  constructor(
    /** Absolute; made on the first save. */
    readonly directory: string,
  ) {}

  /** Every skill, and every folder that is not one with what is wrong with it. */
  async list(): Promise<SkillListing> {
    const skills: SkillSummary[] = [];
    const problems: SkillProblem[] = [];
    for (const name of await this.folderNames()) {
      const read = await this.readFolder(name);
      if ('problems' in read) problems.push(read);
      else skills.push({ name: read.name, description: read.description, digest: read.digest });
    }
    return { skills, problems };
  }

  /** Every usable skill, read whole (for serving), and the folders that are not. */
  async readAll(): Promise<{ skills: SkillRecord[]; problems: SkillProblem[] }> {
    const skills: SkillRecord[] = [];
    const problems: SkillProblem[] = [];
    for (const name of await this.folderNames()) {
      const read = await this.readFolder(name);
      if ('problems' in read) problems.push(read);
      else skills.push(read);
    }
    return { skills, problems };
  }

  /** One skill; throws SkillError for a bad name, no such skill, or a skill whose files can't be used. */
  async read(name: string): Promise<SkillRecord> {
    checkName(name);
    const read = await this.readFolder(name);
    if (!('problems' in read)) return read;
    if (read.problems[0] === NO_FOLDER) throw await this.unknown(name);
    throw new SkillError('SKILL_INVALID', `skill "${name}" in ${join(this.directory, name)}: ${read.problems.join('; ')}`);
  }

  /** Writes SKILL.md and the code into `<directory>/<name>/`, all at once; resolves with what was written. */
  async save(skill: SaveSkill): Promise<SkillRecord> {
    checkName(skill.name);
    checkSaveFields(skill);
    const language = skill.language ?? 'typescript';
    const codeFile = CODE_FILES[language];
    const target = join(this.directory, skill.name);
    const exists = await pathExists(target);
    if (exists && skill.overwrite !== true) {
      throw new SkillError(
        'SKILL_EXISTS',
        `a skill named "${skill.name}" exists (${target}); pass overwrite: true to replace it, or choose another name`,
      );
    }
    await mkdir(this.directory, { recursive: true });
    const staging = join(this.directory, hiddenName(skill.name, 'new'));
    try {
      await mkdir(staging);
      await writeFile(join(staging, SKILL_MANIFEST), renderSkillMarkdown(skill, codeFile));
      await writeFile(join(staging, codeFile), skill.code);
      if (exists) await this.replace(target, staging, skill.name);
      else await this.place(target, staging, skill.name);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    return this.read(skill.name);
  }

  /** Deletes the skill's folder, all at once: renamed aside, then removed. */
  async remove(name: string): Promise<void> {
    checkName(name);
    const target = join(this.directory, name);
    if (!(await pathExists(target))) throw await this.unknown(name);
    const aside = join(this.directory, hiddenName(name, 'removed'));
    await rename(target, aside);
    await rm(aside, { recursive: true, force: true });
  }

  /** A new skill: renaming a folder onto a name taken meanwhile fails, rather than merging two. */
  private async place(target: string, staging: string, name: string): Promise<void> {
    try {
      await rename(staging, target);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'EPERM') throw error;
      throw new SkillError(
        'SKILL_EXISTS',
        `a skill named "${name}" was saved meanwhile (${target}); pass overwrite: true to replace it`,
      );
    }
  }

  /** The old folder aside, the new one in, the old one gone: the whole folder is replaced, files a person added included. */
  private async replace(target: string, staging: string, name: string): Promise<void> {
    const aside = join(this.directory, hiddenName(name, 'old'));
    await rename(target, aside);
    try {
      await rename(staging, target);
    } catch (error) {
      await rename(aside, target);
      throw error;
    }
    await rm(aside, { recursive: true, force: true });
  }

  /** The folders that may be skills: hidden ones (a save or removal in progress, `.git`) are not. */
  private async folderNames(): Promise<string[]> {
    let entries;
    try {
      entries = await readdir(this.directory, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    // A symlink is listed, to be reported by readFolder rather than passed over in silence.
    return entries
      .filter((entry) => (entry.isDirectory() || entry.isSymbolicLink()) && !entry.name.startsWith('.'))
      .map((entry) => entry.name)
      .sort();
  }

  private async readFolder(name: string): Promise<SkillRecord | SkillProblem> {
    const folder = join(this.directory, name);
    let names: string[];
    try {
      // Not followed, as the SDK's own folder adapter doesn't: a skill's files are those in its folder.
      if ((await lstat(folder)).isSymbolicLink()) {
        return { name, problems: ['a symlink, which is not followed: move or copy the folder here instead'] };
      }
      names = await readdir(folder);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { name, problems: [NO_FOLDER] };
      return { name, problems: [`cannot read the folder: ${(error as Error).message}`] };
    }
    const problems: string[] = [];
    if (!names.includes(SKILL_MANIFEST))
      problems.push(`no ${SKILL_MANIFEST}: write one with name and description in its frontmatter`);
    const codeFiles = Object.entries(CODE_FILES).filter(([, file]) => names.includes(file));
    if (codeFiles.length === 0)
      problems.push(`no code: write the script body in ${CODE_FILES.typescript} or ${CODE_FILES.javascript}`);
    if (codeFiles.length > 1) problems.push(`both ${CODE_FILES.typescript} and ${CODE_FILES.javascript}: keep one`);
    if (problems.length > 0) return { name, problems };
    const [language, codeFile] = codeFiles[0] as [SkillLanguage, string];

    const files = new Map<string, Uint8Array>();
    for (const file of [SKILL_MANIFEST, codeFile]) {
      const read = await readRegularFile(join(folder, file));
      if (typeof read === 'string') problems.push(`${file}: ${read}`);
      else files.set(file, read);
    }
    if (problems.length > 0) return { name, problems };
    const size = [...files.values()].reduce((sum, bytes) => sum + bytes.byteLength, 0);
    if (size > SKILL_LIMITS.bytes) {
      return { name, problems: [`its files hold ${size} bytes, past the ${SKILL_LIMITS.bytes} the Skills extension allows`] };
    }

    let entry: Skill;
    try {
      entry = await skillEntry(name, Object.fromEntries(files), { baseUri: SKILL_BASE_URI });
    } catch (error) {
      if (!(error instanceof SkillCatalogError)) throw error;
      return { name, problems: error.problems.map((problem) => problem.message) };
    }
    const frontmatter = entry.frontmatter;
    const schema = readInputSchema(frontmatter);
    if ('problem' in schema) return { name, problems: [`${SKILL_MANIFEST}: ${schema.problem}`] };
    const decoder = new TextDecoder();
    return {
      name,
      description: frontmatter.description,
      digest: skillDigest(entry),
      frontmatter,
      ...(schema.schema !== undefined ? { inputSchema: schema.schema } : {}),
      body: bodyOf(decoder.decode(files.get(SKILL_MANIFEST))),
      code: decoder.decode(files.get(codeFile)),
      language,
      entry,
      files,
    };
  }

  private async unknown(name: string): Promise<SkillError> {
    const names = await this.folderNames();
    const close = closestName(name, names);
    const known = names.length === 0 ? 'it has none' : `it has ${names.join(', ')}`;
    return new SkillError(
      'SKILL_UNKNOWN',
      `no skill named "${name}" in ${this.directory} (${known})${close === null ? '' : `; did you mean "${close}"?`}`,
    );
  }
}

/** Said of a folder that isn't there: `read` turns it into SKILL_UNKNOWN. */
const NO_FOLDER = 'no such folder';

/**
 * One digest for the whole skill: sha256 over a line `<path> <digest>` per file, in the entry's
 * order, each file's digest being the extension's own (sha256 of its bytes). It changes exactly
 * when a file the extension serves changes.
 */
export function skillDigest(entry: Skill): string {
  const resources = entry.resources === 'dynamic' ? [] : entry.resources;
  const root = entry.uri.slice(0, -SKILL_MANIFEST.length);
  const lines = resources.map((resource) => `${resource.uri.slice(root.length)} ${resource.digest}\n`).join('');
  return `sha256:${createHash('sha256').update(lines).digest('hex')}`;
}

function checkName(name: string): void {
  const problem = skillNameProblem(name);
  if (problem !== null) throw new SkillError('SKILL_NAME_INVALID', `${problem}; nothing was written`);
}

function checkSaveFields(skill: SaveSkill): void {
  const refuse = (detail: string): never => {
    throw new SkillError('SKILL_SAVE_INVALID', `skill "${skill.name}": ${detail}; nothing was written`);
  };
  if (typeof skill.description !== 'string' || skill.description.trim() === '') {
    refuse('description must be a non-empty string: say what the skill does, in a line');
  }
  if ([...skill.description].length > SKILL_DESCRIPTION_MAX_CHARS) {
    refuse(`description has ${[...skill.description].length} characters, past the ${SKILL_DESCRIPTION_MAX_CHARS} allowed`);
  }
  if (typeof skill.code !== 'string' || skill.code.trim() === '') refuse('code must be a non-empty script body');
  if (skill.language !== undefined && !Object.hasOwn(CODE_FILES, skill.language)) {
    refuse(`language must be ${Object.keys(CODE_FILES).join(' or ')}; got ${JSON.stringify(skill.language)}`);
  }
  const schema = skill.inputSchema;
  if (schema !== undefined && (schema === null || typeof schema !== 'object' || Array.isArray(schema))) {
    refuse('inputSchema must be a JSON Schema object, as in {"type":"object","properties":{...}}');
  }
}

/** A hidden sibling for a skill's folder in transit: listing skips it; the random part keeps saves apart. */
function hiddenName(name: string, purpose: string): string {
  return `.${name}.${purpose}-${randomBytes(6).toString('hex')}`;
}

async function pathExists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** The file's bytes, or what is wrong: a symlink is refused, as the SDK's own folder adapter does. */
async function readRegularFile(path: string): Promise<Uint8Array | string> {
  try {
    const stats = await lstat(path);
    if (!stats.isFile()) return 'not a regular file (symlinks are not followed; copy the file instead)';
    return await readFile(path);
  } catch (error) {
    return `cannot be read: ${(error as Error).message}`;
  }
}
