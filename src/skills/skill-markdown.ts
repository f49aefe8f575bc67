/**
 * A skill's SKILL.md as codemode-mcp writes it. The frontmatter holds only what the Agent Skills
 * format and the MCP Skills extension allow (`name`, `description`, `metadata` of strings), so
 * both accept the file as it is; the input schema is `metadata.input-schema`, one line of JSON, so
 * a client that lists the skill gets it with the frontmatter, and a person edits it in place:
 *
 *     ---
 *     name: summarize-issues
 *     description: "Summarizes the open issues of a repository"
 *     metadata:
 *       input-schema: '{"type":"object","properties":{"repo":{"type":"string"}}}'
 *     ---
 *     (the body: what it does, for people and models)
 */

/** The key under `metadata` that holds the input schema as JSON text. */
export const INPUT_SCHEMA_KEY = 'input-schema';

export interface SkillMarkdown {
  readonly name: string;
  readonly description: string;
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  /** Markdown after the frontmatter; generated from the description when absent. */
  readonly body?: string;
}

/** The text of SKILL.md. Every value is quoted so no description can be read back as other YAML. */
export function renderSkillMarkdown(skill: SkillMarkdown, codeFile: string): string {
  const lines = ['---', `name: ${skill.name}`, `description: ${JSON.stringify(skill.description)}`];
  if (skill.inputSchema !== undefined) {
    // YAML single quotes: the JSON's own double quotes stay as they are, a ' is doubled.
    lines.push('metadata:', `  ${INPUT_SCHEMA_KEY}: '${JSON.stringify(skill.inputSchema).replaceAll("'", "''")}'`);
  }
  lines.push('---', '');
  const body = skill.body ?? defaultBody(skill, codeFile);
  return `${lines.join('\n')}${body.endsWith('\n') ? body : `${body}\n`}`;
}

function defaultBody(skill: SkillMarkdown, codeFile: string): string {
  const call = `await skills[${JSON.stringify(skill.name)}](input)`;
  const parts = [`# ${skill.name}`, '', skill.description, '', `Called from a code_execution script as \`${call}\`.`];
  parts.push(`Its code is in \`${codeFile}\`: a script body with \`input\` in scope; \`return\` gives the value.`);
  if (skill.inputSchema !== undefined) {
    parts.push('', '## Input', '', '```json', JSON.stringify(skill.inputSchema, null, 2), '```');
  }
  return parts.join('\n');
}

/** The markdown after the frontmatter of a SKILL.md already known to have one. */
export function bodyOf(markdown: string): string {
  const text = markdown.replaceAll('\r\n', '\n').replace(/^\uFEFF/, '');
  const rest = text.slice('---\n'.length);
  const close = /^---[\t ]*$/m.exec(rest);
  if (close === null) return '';
  const body = rest.slice(close.index + close[0].length);
  return body.startsWith('\n') ? body.slice(1) : body;
}

/** The input schema from a parsed frontmatter: absent, the object, or what is wrong with it. */
export function readInputSchema(
  frontmatter: Readonly<Record<string, unknown>>,
): { schema?: Record<string, unknown> } | { problem: string } {
  const metadata = frontmatter['metadata'];
  if (metadata === undefined || metadata === null || typeof metadata !== 'object') return {};
  const text = (metadata as Record<string, unknown>)[INPUT_SCHEMA_KEY];
  if (text === undefined) return {};
  const where = `metadata.${INPUT_SCHEMA_KEY}`;
  if (typeof text !== 'string') return { problem: `${where} must be one line of JSON in quotes` };
  try {
    const schema: unknown = JSON.parse(text);
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
      return { problem: `${where} must be a JSON Schema object, as in '{"type":"object"}'` };
    }
    return { schema: schema as Record<string, unknown> };
  } catch (error) {
    return { problem: `${where} is not JSON: ${(error as Error).message}` };
  }
}
