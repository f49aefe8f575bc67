import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { skillsApi } from '../../src/skills/skills-api.js';
import type { CatalogTool } from '../../src/catalog/types.js';
import { SkillsLibrary } from '../../src/skills/skills-library.js';
import { ScriptChecker, refusalOf } from '../../src/typecheck/script-checker.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { everythingCatalog } from './catalogs.js';

const directory = makeTempDir('skill-save');
const checker = new ScriptChecker({ timeLimitMs: 60_000 });
let catalog: readonly CatalogTool[];

beforeAll(async () => {
  catalog = await everythingCatalog();
});

afterAll(async () => {
  await checker.close();
  rmSync(directory, { recursive: true, force: true });
});

function save(code: string, mode: 'error' | 'warn' = 'error'): Promise<unknown> {
  const call = skillsApi(
    new SkillsLibrary(directory),
    { allowed: true, principal: 'test' },
    () => {},
    async (skill) => refusalOf(await checker.checkSkill(skill, catalog, { mode })),
  );
  const inputSchema = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'], additionalProperties: false };
  return call(
    { call: 'skills.save', label: 'skills.save', name: 'add', description: 'Adds', code, inputSchema, overwrite: true },
    new AbortController().signal,
  );
}

describe('a skill saved by a script is type-checked first (issue 47)', () => {
  test('against its input schema and the tools: refused with what the check found, and nothing written', async () => {
    await expect(save('return (await tools["get-sum"]({ a: input.a, b: input.b })).content[0].text;')).rejects.toThrow(
      /^SKILL_TYPE_CHECK: skill "add" was not saved \(nothing was written\): Refused by the type check\. 1 problem in the skill:\nskill:1:55: Property 'b' does not exist on type/,
    );
    expect(existsSync(join(directory, 'add'))).toBe(false);
  });

  test('a skill that passes is saved', async () => {
    await expect(save('return (await tools["get-sum"]({ a: input.a, b: 1 })).content[0].text;')).resolves.toMatchObject({
      name: 'add',
    });
    expect(existsSync(join(directory, 'add', 'skill.ts'))).toBe(true);
  });

  test('with typeCheck "warn", a skill with problems is saved', async () => {
    await expect(save('return input.b;', 'warn')).resolves.toMatchObject({ name: 'add' });
  });
});
