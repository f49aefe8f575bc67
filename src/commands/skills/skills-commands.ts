/**
 * `codemode-mcp skills list`, `skills show <name>`, `skills rm <name>`: the skills library for
 * people. What was asked for goes to stdout, problems to stderr; the exit code is 0 when all went
 * well, 1 when a skill is unknown or a folder is not a usable skill, 2 for a name that breaks the rules.
 */
import { join } from 'node:path';
import type { CliInvocation } from '../../cli/parse-cli.js';
import { prefixLine } from '../../support/log.js';
import { SkillError } from '../../skills/skill-error.js';
import { skillsDirectory } from '../../skills/skills-directory.js';
import { SKILL_MANIFEST, CODE_FILES, SkillsLibrary, type SkillListing, type SkillRecord } from '../../skills/skills-library.js';

export interface SkillsOutput {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const processOutput: SkillsOutput = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

/** As a command line that can't be understood: the name typed breaks the naming rules. */
const EXIT_BAD_NAME = 2;

export async function runSkillsCommand(invocation: CliInvocation, output: SkillsOutput = processOutput): Promise<number> {
  const { action, name = '', json } = invocation.skills ?? { action: 'list', json: false };
  const library = new SkillsLibrary(skillsDirectory(invocation.settings));
  try {
    switch (action) {
      case 'list': {
        const listing = await library.list();
        output.stdout(
          json
            ? `${JSON.stringify({ directory: library.directory, ...listing }, null, 2)}\n`
            : renderListing(listing, library.directory),
        );
        if (!json && listing.problems.length > 0) output.stderr(renderProblems(listing));
        return listing.problems.length > 0 ? 1 : 0;
      }
      case 'show':
        output.stdout(renderSkill(await library.read(name), library.directory));
        return 0;
      case 'rm':
        await library.remove(name);
        output.stdout(`removed skill "${name}" (${join(library.directory, name)})\n`);
        return 0;
    }
  } catch (error) {
    if (!(error instanceof SkillError)) throw error;
    output.stderr(`${prefixLine(error.message)}\n`);
    return error.code === 'SKILL_NAME_INVALID' ? EXIT_BAD_NAME : 1;
  }
}

function renderListing(listing: SkillListing, directory: string): string {
  const count = listing.skills.length;
  if (count === 0 && listing.problems.length === 0) {
    return `No skills in ${directory}: a script saves one, or write <name>/${SKILL_MANIFEST} and <name>/${CODE_FILES.typescript} there.\n`;
  }
  const width = Math.max(0, ...listing.skills.map((skill) => skill.name.length));
  const lines = [`${count} skill${count === 1 ? '' : 's'} in ${directory}:`];
  for (const skill of listing.skills) lines.push(`  ${skill.name.padEnd(width)}  ${firstLine(skill.description)}`);
  return `${lines.join('\n')}\n`;
}

function renderProblems(listing: SkillListing): string {
  const count = listing.problems.length;
  const lines = [prefixLine(`${count} folder${count === 1 ? ' is' : 's are'} not a usable skill:`)];
  for (const { name, problems } of listing.problems) lines.push(`  ${name}: ${problems.join('; ')}`);
  return `${lines.join('\n')}\n`;
}

function renderSkill(skill: SkillRecord, directory: string): string {
  const codeFile = CODE_FILES[skill.language];
  const lines = [
    `${skill.name} (${skill.digest})`,
    `  ${join(directory, skill.name, SKILL_MANIFEST)}`,
    `  ${join(directory, skill.name, codeFile)}`,
    '',
    `description: ${skill.description}`,
  ];
  if (skill.inputSchema !== undefined) lines.push(`input schema: ${JSON.stringify(skill.inputSchema)}`);
  lines.push('', `== ${SKILL_MANIFEST} (body)`, skill.body.trimEnd(), '', `== ${codeFile}`, skill.code.trimEnd());
  return `${lines.join('\n')}\n`;
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length < text.length ? `${line} …` : line;
}
