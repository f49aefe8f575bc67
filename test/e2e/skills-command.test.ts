import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { writeConfig } from '../support/mcp-client.js';
import { runInProcess } from '../support/in-process-command.js';
import { makeTempDir } from '../support/temp-dirs.js';

function writeSkill(dir: string, name: string, files: Record<string, string>): void {
  mkdirSync(join(dir, name), { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, name, file), text);
}

const manifest = (name: string, description: string): string =>
  `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`;

/** A skills directory with two good skills and one folder that is not a skill. */
function skillsDir(): string {
  const dir = makeTempDir('skills-cli');
  writeSkill(dir, 'greet', {
    'SKILL.md': `---\nname: greet\ndescription: Greets someone by name\nmetadata:\n  input-schema: '{"type":"object"}'\n---\n# greet\n`,
    'skill.ts': 'return `hello ${input.name}`;\n',
  });
  writeSkill(dir, 'count-items', {
    'SKILL.md': manifest('count-items', 'Counts the items given'),
    'skill.js': 'return input.items.length;\n',
  });
  writeSkill(dir, 'broken', { 'SKILL.md': manifest('broken', 'No code yet') });
  return dir;
}

// The command runs in this process as the bin runs it; its output has its final newline taken off, as a shell's $(...) would.
describe('codemode-mcp skills', () => {
  test('list prints each skill with its description, then each folder that is not a skill and why, and exits 1', async () => {
    const dir = skillsDir();
    const { stdout, stderr, exitCode } = await runInProcess(['skills', 'list', '--skills-dir', dir]);
    expect(stdout).toBe(`2 skills in ${dir}:\n  count-items  Counts the items given\n  greet        Greets someone by name`);
    expect(stderr).toBe(
      'codemode-mcp: 1 folder is not a usable skill:\n  broken: no code: write the script body in skill.ts or skill.js',
    );
    expect(exitCode).toBe(1);
  });

  test('list --json gives each skill its digest, and exits 0 when every folder is a skill', async () => {
    const dir = makeTempDir('skills-cli');
    writeSkill(dir, 'greet', { 'SKILL.md': manifest('greet', 'Greets'), 'skill.ts': 'return 1;\n' });
    const { stdout, exitCode } = await runInProcess(['skills', 'list', '--json', '--skills-dir', dir]);
    expect(exitCode).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      directory: dir,
      skills: [{ name: 'greet', description: 'Greets', digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) }],
      problems: [],
    });
  });

  test('show prints the files, the description, the input schema, the body and the code', async () => {
    const dir = skillsDir();
    const { stdout, exitCode } = await runInProcess(['skills', 'show', 'greet', '--skills-dir', dir]);
    expect(exitCode).toBe(0);
    expect(stdout).toMatch(
      new RegExp(
        `^greet \\(sha256:[0-9a-f]{64}\\)\\n  ${dir}/greet/SKILL\\.md\\n  ${dir}/greet/skill\\.ts\\n\\n` +
          'description: Greets someone by name\\ninput schema: \\{"type":"object"\\}\\n\\n' +
          '== SKILL\\.md \\(body\\)\\n# greet\\n\\n== skill\\.ts\\nreturn `hello \\$\\{input\\.name\\}`;$',
      ),
    );
  });

  test('show of an unknown skill exits 1 naming the close one; a name that breaks the rules exits 2 saying which', async () => {
    const dir = skillsDir();
    const unknown = await runInProcess(['skills', 'show', 'gret', '--skills-dir', dir]);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toBe(
      `codemode-mcp: SKILL_UNKNOWN: no skill named "gret" in ${dir} (it has broken, count-items, greet); did you mean "greet"?`,
    );
    const bad = await runInProcess(['skills', 'show', 'Greet', '--skills-dir', dir]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('SKILL_NAME_INVALID: ');
    expect(bad.stderr).toContain('"Greet" has capitals: use "greet"');
  });

  test("rm deletes the folder; the config file's skillsDir is where it looks", async () => {
    const dir = skillsDir();
    const config = writeConfig({ any: { command: 'true' } }, { skillsDir: dir });
    const { stdout, exitCode } = await runInProcess(['skills', 'rm', 'greet', '--config', config]);
    expect(exitCode).toBe(0);
    expect(stdout).toBe(`removed skill "greet" (${join(dir, 'greet')})`);
    expect(existsSync(join(dir, 'greet'))).toBe(false);
    const again = await runInProcess(['skills', 'rm', 'greet', '--config', config]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('SKILL_UNKNOWN: no skill named "greet"');
  });

  test('an unknown subcommand is a usage error naming the close one', async () => {
    const { stderr, exitCode } = await runInProcess(['skills', 'lst']);
    expect(exitCode).toBe(2);
    expect(stderr).toContain(
      'codemode-mcp: unknown skills command "lst" (did you mean "codemode-mcp skills list"?); the skills commands:',
    );
  });
});
