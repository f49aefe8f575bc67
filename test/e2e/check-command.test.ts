import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { nodeEntry, publishedEntry, writeConfig } from '../support/mcp-client.js';
import { runInProcess } from '../support/in-process-command.js';
import { makeTempDir } from '../support/temp-dirs.js';

const dir = makeTempDir('check-command');

function scriptFile(name: string, code: string): string {
  const path = join(dir, name);
  writeFileSync(path, code);
  return path;
}

describe('codemode-mcp check, with server-everything as its upstream process', () => {
  const config = writeConfig({ everything: nodeEntry(publishedEntry('server-everything'), ['stdio']) });

  test('prints each problem at its line and column with the tool concerned, runs nothing, and exits 1', async () => {
    const path = scriptFile(
      'wrong.ts',
      [
        'const w = await tools["get-structured-content"]({ location: "Chicago" });',
        'await tools["get-sum"]({ a: 1 });',
        'return w.structuredContent.temprature;',
      ].join('\n'),
    );
    const { stdout, exitCode, left } = await runInProcess(['check', path, '--config', config]);
    expect(exitCode).toBe(1);
    expect(stdout).toContain(`${path}:\nRefused by the type check; nothing ran. 2 problems in the script:\n`);
    expect(stdout).toContain(
      "script:2:24: Property 'b' is missing in type '{ a: number; }' but required in type 'Input_get_sum'.",
    );
    expect(stdout).toContain(
      "script:3:28: Property 'temprature' does not exist on type 'Output_get_structured_content'. Did you mean 'temperature'?",
    );
    expect(stdout).toContain('tools["get-sum"](args: {');
    expect(left).toEqual([]);
  });

  test('says a clean script is clean, and exits 0', async () => {
    const path = scriptFile('clean.js', 'return (await tools["echo"]({ message: "hi" })).content[0].text;\n');
    const { stdout, exitCode, left } = await runInProcess(['check', path, '--config', config]);
    expect(stdout.trim()).toBe(`${path}: no problems found (javascript)`);
    expect(exitCode).toBe(0);
    expect(left).toEqual([]);
  });

  test("checks a skill's code as that skill, its input typed from SKILL.md's schema", async () => {
    const folder = join(dir, 'skills', 'add');
    mkdirSync(folder, { recursive: true });
    const schema = JSON.stringify({
      type: 'object',
      properties: { a: { type: 'number' } },
      required: ['a'],
      additionalProperties: false,
    });
    writeFileSync(
      join(folder, 'SKILL.md'),
      `---\nname: add\ndescription: Adds\nmetadata:\n  input-schema: '${schema}'\n---\n# add\n`,
    );
    const path = join(folder, 'skill.ts');
    writeFileSync(path, 'return (await tools["get-sum"]({ a: input.a, b: input.b })).content[0].text;\n');
    const { stdout, exitCode } = await runInProcess(['check', path, '--config', config]);
    expect(exitCode).toBe(1);
    expect(stdout).toContain(`${path} (a skill):`);
    expect(stdout).toMatch(
      /Refused by the type check\. 1 problem in the skill:\nskill:1:55: Property 'b' does not exist on type/,
    );
  });

  test('says where a syntax error is, and exits 1', async () => {
    const path = scriptFile('broken.js', 'const = 1;\n');
    const { stdout, exitCode } = await runInProcess(['check', path, '--config', config]);
    expect(exitCode).toBe(1);
    expect(stdout).toMatch(/a syntax error, so it was not type-checked:\nscript:1:7: /);
  });

  test('names a script it cannot read, and exits 2', async () => {
    const { stderr, exitCode } = await runInProcess(['check', join(dir, 'absent.ts'), '--config', config]);
    expect(exitCode).toBe(2);
    expect(stderr).toMatch(/cannot read the script .*absent\.ts: ENOENT/);
  });
});
