import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { SkillError } from '../../src/skills/skill-error.js';
import { skillNameProblem } from '../../src/skills/skill-name.js';
import { SkillsLibrary, type SaveSkill } from '../../src/skills/skills-library.js';
import { skillsDirectory } from '../../src/skills/skills-directory.js';
import { makeTempDir } from '../support/temp-dirs.js';

/** The SkillError a promise rejects with; anything else fails the test. */
async function rejection(promise: Promise<unknown>): Promise<SkillError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof SkillError)) throw new Error(`expected a SkillError, got ${String(error)}`);
  return error;
}

const library = (): SkillsLibrary => new SkillsLibrary(join(makeTempDir('skills'), 'skills'));

function writeFiles(dir: string, name: string, files: Record<string, string>): void {
  mkdirSync(join(dir, name), { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, name, file), text);
}

const manifest = (name: string, description = 'Does a thing'): string =>
  `---\nname: ${name}\ndescription: ${description}\n---\nbody\n`;

describe('saving and reading a skill', () => {
  test('a save writes SKILL.md and skill.ts into a folder of its name, and reads back what was saved', async () => {
    const skills = library();
    const description = 'Sums: the "numbers" given, # all of them\nand says so';
    const inputSchema = { type: 'object', properties: { numbers: { type: 'array', items: { type: 'number' } } }, title: "it's" };
    await skills.save({
      name: 'sum-numbers',
      description,
      code: 'return input.numbers.reduce((a, b) => a + b, 0);',
      inputSchema,
    });
    expect(readdirSync(skills.directory)).toEqual(['sum-numbers']);
    expect(readdirSync(join(skills.directory, 'sum-numbers')).sort()).toEqual(['SKILL.md', 'skill.ts']);
    const read = await skills.read('sum-numbers');
    expect(read).toMatchObject({ name: 'sum-numbers', description, inputSchema, language: 'typescript' });
    expect(read.code).toBe('return input.numbers.reduce((a, b) => a + b, 0);');
    expect(read.body).toContain('await skills["sum-numbers"](input)');
    expect(read.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(read.entry.uri).toBe('skill://sum-numbers/SKILL.md');
    expect(await skills.list()).toEqual({ skills: [{ name: 'sum-numbers', description, digest: read.digest }], problems: [] });
  });

  test("a JavaScript skill is skill.js, and a body given is SKILL.md's body as written", async () => {
    const skills = library();
    await skills.save({
      name: 'js-one',
      description: 'd',
      code: 'return 1;',
      language: 'javascript',
      body: '# Mine\n\nHand-made.\n',
    });
    const read = await skills.read('js-one');
    expect(read.language).toBe('javascript');
    expect(read.body).toBe('# Mine\n\nHand-made.\n');
    expect(existsSync(join(skills.directory, 'js-one', 'skill.js'))).toBe(true);
  });

  test('a save over an existing skill fails without overwrite, saying so, and replaces it whole with overwrite', async () => {
    const skills = library();
    await skills.save({ name: 'twice', description: 'first', code: 'return 1;' });
    const error = await rejection(skills.save({ name: 'twice', description: 'second', code: 'return 2;' }));
    expect(error).toBeInstanceOf(SkillError);
    expect(error.message).toBe(
      `SKILL_EXISTS: a skill named "twice" exists (${join(skills.directory, 'twice')}); pass overwrite: true to replace it, or choose another name`,
    );
    expect((await skills.read('twice')).description).toBe('first');
    await skills.save({ name: 'twice', description: 'second', code: 'return 2;', language: 'javascript', overwrite: true });
    expect(readdirSync(join(skills.directory, 'twice')).sort()).toEqual(['SKILL.md', 'skill.js']);
    expect(await skills.read('twice')).toMatchObject({ description: 'second', code: 'return 2;' });
    // Nothing in transit is left beside it.
    expect(readdirSync(skills.directory)).toEqual(['twice']);
  });

  test('of two saves of one new name at once, one is written and the other fails as existing', async () => {
    const skills = library();
    const results = await Promise.allSettled([
      skills.save({ name: 'race', description: 'a', code: 'return "a";' }),
      skills.save({ name: 'race', description: 'b', code: 'return "b";' }),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    const failed = results.find((result) => result.status === 'rejected');
    expect((failed as PromiseRejectedResult).reason).toMatchObject({ code: 'SKILL_EXISTS' });
    const read = await skills.read('race');
    expect(read.code).toBe(`return "${read.description}";`);
    expect(readdirSync(skills.directory)).toEqual(['race']);
  });

  test('a save with an empty description or code, or a schema that is not an object, writes nothing', async () => {
    const skills = library();
    for (const [fields, detail] of [
      [{ description: ' ' }, 'description must be a non-empty string'],
      [{ description: 'x'.repeat(1025) }, 'description has 1025 characters, past the 1024 allowed'],
      [{ code: '' }, 'code must be a non-empty script body'],
      [{ inputSchema: [] as unknown as Record<string, unknown> }, 'inputSchema must be a JSON Schema object'],
    ] as [Partial<SaveSkill>, string][]) {
      const error = await rejection(skills.save({ name: 'fine-name', description: 'd', code: 'return 1;', ...fields }));
      expect(error.message).toContain(`SKILL_SAVE_INVALID: skill "fine-name": ${detail}`);
    }
    expect(existsSync(skills.directory)).toBe(false);
  });
});

describe('names', () => {
  test.each([
    ['', 'got an empty name'],
    ['x'.repeat(65), `"${'x'.repeat(65)}" has 65 characters: shorten it`],
    ['Summarize', '"Summarize" has capitals: use "summarize"'],
    ['my skill', '"my skill" has " ": use "my-skill"'],
    ['../escape', '"../escape" has ".": use "escape"'],
    ['a/b', '"a/b" has "/": use "a-b"'],
    ['-lead', '"-lead" starts or ends with a hyphen: drop it'],
    ['trail-', '"trail-" starts or ends with a hyphen: drop it'],
    ['two--hyphens', '"two--hyphens" has two hyphens in a row: use one'],
  ])('%j is refused before anything is written, saying which rule and what to do', async (name, detail) => {
    const skills = library();
    const error = await rejection(skills.save({ name, description: 'd', code: 'return 1;' }));
    expect(error.message).toBe(
      `SKILL_NAME_INVALID: a skill's name is 1 to 64 lowercase letters, digits and single hyphens, as in "summarize-issues"; ${detail}; nothing was written`,
    );
    expect(existsSync(skills.directory)).toBe(false);
    await expect(skills.read(name)).rejects.toMatchObject({ code: 'SKILL_NAME_INVALID' });
    await expect(skills.remove(name)).rejects.toMatchObject({ code: 'SKILL_NAME_INVALID' });
  });

  test('64 characters, digits and single hyphens are a good name', () => {
    expect(skillNameProblem('a'.repeat(64))).toBeNull();
    expect(skillNameProblem('v2-fetch-3')).toBeNull();
  });
});

describe('folders written by hand', () => {
  test('each bad folder is reported with what is wrong, and the good skills are listed all the same', async () => {
    const skills = library();
    const dir = skills.directory;
    writeFiles(dir, 'good', { 'SKILL.md': manifest('good'), 'skill.js': 'return 1;' });
    writeFiles(dir, 'no-frontmatter', { 'SKILL.md': '# just markdown\n', 'skill.ts': 'return 1;' });
    writeFiles(dir, 'mismatch', { 'SKILL.md': manifest('other-name'), 'skill.ts': 'return 1;' });
    writeFiles(dir, 'no-code', { 'SKILL.md': manifest('no-code') });
    writeFiles(dir, 'both', { 'SKILL.md': manifest('both'), 'skill.ts': 'return 1;', 'skill.js': 'return 1;' });
    writeFiles(dir, 'no-manifest', { 'skill.ts': 'return 1;' });
    symlinkSync(join(dir, 'good'), join(dir, 'linked'));
    writeFiles(dir, 'bad-schema', {
      'SKILL.md': `---\nname: bad-schema\ndescription: d\nmetadata:\n  input-schema: '{"type":'\n---\n`,
      'skill.ts': 'return 1;',
    });
    // Hidden folders (a save in transit, .git) and loose files are not skills.
    writeFiles(dir, '.good.new-0123', { 'SKILL.md': '' });
    writeFileSync(join(dir, 'README.md'), 'my skills');
    const { skills: listed, problems } = await skills.list();
    expect(listed.map((skill) => skill.name)).toEqual(['good']);
    expect(problems).toEqual([
      { name: 'bad-schema', problems: [expect.stringMatching(/^SKILL\.md: metadata\.input-schema is not JSON: /)] },
      { name: 'both', problems: ['both skill.ts and skill.js: keep one'] },
      { name: 'linked', problems: ['a symlink, which is not followed: move or copy the folder here instead'] },
      { name: 'mismatch', problems: ['frontmatter name "other-name" must match the last path segment "mismatch"'] },
      { name: 'no-code', problems: ['no code: write the script body in skill.ts or skill.js'] },
      { name: 'no-frontmatter', problems: ['SKILL.md frontmatter: line 1: SKILL.md must begin with a "---" line'] },
      { name: 'no-manifest', problems: ['no SKILL.md: write one with name and description in its frontmatter'] },
    ]);
    const error = await rejection(skills.read('both'));
    expect(error.message).toBe(`SKILL_INVALID: skill "both" in ${join(dir, 'both')}: both skill.ts and skill.js: keep one`);
  });

  test('an edit by hand shows on the next list and read, with a new digest, without a new library', async () => {
    const skills = library();
    await skills.save({ name: 'edited', description: 'before', code: 'return 1;' });
    const before = (await skills.list()).skills[0]!;
    writeFileSync(join(skills.directory, 'edited', 'skill.ts'), 'return 2;');
    const codeEdited = (await skills.list()).skills[0]!;
    expect(codeEdited.digest).not.toBe(before.digest);
    writeFileSync(join(skills.directory, 'edited', 'SKILL.md'), manifest('edited', 'after'));
    expect((await skills.list()).skills[0]).toMatchObject({ description: 'after' });
    expect((await skills.read('edited')).code).toBe('return 2;');
  });

  test("docs/skills.md's SKILL.md example is a skill the library reads, input schema and all", async () => {
    const doc = readFileSync(new URL('../../docs/skills.md', import.meta.url), 'utf8');
    const example = /```markdown\n(---\nname: summarize-issues[\s\S]*?)```/.exec(doc)?.[1];
    expect(example).toBeDefined();
    const skills = library();
    writeFiles(skills.directory, 'summarize-issues', { 'SKILL.md': example!, 'skill.ts': 'return [];' });
    const read = await skills.read('summarize-issues');
    expect(read.inputSchema).toEqual({ type: 'object', properties: { repo: { type: 'string' } }, required: ['repo'] });
  });
});

describe('removing', () => {
  test('a removed skill is gone from the disk and the list; an unknown one is refused, naming the close one', async () => {
    const skills = library();
    await skills.save({ name: 'keep-me', description: 'd', code: 'return 1;' });
    await skills.save({ name: 'drop-me', description: 'd', code: 'return 1;' });
    await skills.remove('drop-me');
    expect(readdirSync(skills.directory)).toEqual(['keep-me']);
    const error = await rejection(skills.remove('keep-mee'));
    expect(error.message).toBe(
      `SKILL_UNKNOWN: no skill named "keep-mee" in ${skills.directory} (it has keep-me); did you mean "keep-me"?`,
    );
  });

  test('a library whose directory does not exist yet lists nothing, and reads say it has no skills', async () => {
    const skills = library();
    expect(await skills.list()).toEqual({ skills: [], problems: [] });
    await expect(skills.read('any')).rejects.toThrow(`SKILL_UNKNOWN: no skill named "any" in ${skills.directory} (it has none)`);
  });
});

describe('the default directory', () => {
  test('is skills in the data directory: XDG_DATA_HOME, else ~/.local/share on Linux; skillsDir wins', () => {
    expect(skillsDirectory({ skillsDir: null }, { XDG_DATA_HOME: '/data' }, 'linux')).toBe('/data/codemode-mcp/skills');
    expect(skillsDirectory({ skillsDir: null }, {}, 'linux')).toMatch(/\/\.local\/share\/codemode-mcp\/skills$/);
    expect(skillsDirectory({ skillsDir: null }, {}, 'darwin')).toMatch(/\/Library\/Application Support\/codemode-mcp\/skills$/);
    expect(skillsDirectory({ skillsDir: '/mine' }, { XDG_DATA_HOME: '/data' }, 'linux')).toBe('/mine');
  });
});
