/**
 * `skills` in a script's own child, over a real skills library in a temporary directory: a save,
 * a call with valid and invalid input, TypeScript, a skill calling tools, load() and another skill,
 * a skill's failure naming it, an unknown skill, a server without skills.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { skillsApi, type SkillSaving } from '../../src/skills/skills-api.js';
import type { SkillsCaller, StateCaller } from '../../src/script-host/apis.js';
import { SkillsLibrary } from '../../src/skills/skills-library.js';
import { runScript, toolEntries, type StartOptions } from '../support/scripts.js';

let directory: string;
let library: SkillsLibrary;
let logged: string[];

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'skills-calls-'));
  library = new SkillsLibrary(directory);
  logged = [];
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const SAVING: SkillSaving = { allowed: true, principal: 'the test' };

function caller(saving: SkillSaving = SAVING): SkillsCaller {
  return skillsApi(library, saving, (line) => logged.push(line));
}

async function outcome(code: string, options: StartOptions = {}): Promise<{ status: string; value?: unknown; error?: string }> {
  const ret = await runScript(code, { callSkills: caller(), ...options });
  return {
    status: ret.status,
    ...(ret.value !== undefined ? { value: JSON.parse(ret.value) as unknown } : {}),
    ...(ret.error !== undefined ? { error: ret.error } : {}),
  };
}

async function valueOf(code: string, options: StartOptions = {}): Promise<unknown> {
  const ret = await outcome(code, options);
  expect(ret.status, ret.error).toBe('finished');
  return ret.value;
}

const ADD_SCHEMA = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' }, mode: { enum: ['sum', 'product'] } },
  required: ['a', 'b'],
};

describe('skills in a script', () => {
  it('saves a skill, lists and describes it, and calls it by name in the same script and in a later one', async () => {
    const first = await valueOf(
      `const saved = await skills.save({
         name: "add-numbers",
         description: "Adds two numbers",
         code: "return input.mode === 'product' ? input.a * input.b : input.a + input.b;",
         inputSchema: ${JSON.stringify(ADD_SCHEMA)},
       });
       return { saved, now: await skills["add-numbers"]({ a: 2, b: 3 }), list: await skills.list() };`,
    );
    expect(first).toMatchObject({
      saved: { name: 'add-numbers', description: 'Adds two numbers', digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) },
      now: 5,
      list: [{ name: 'add-numbers', description: 'Adds two numbers' }],
    });
    expect(logged).toEqual([
      expect.stringMatching(/^codemode-mcp: skill "add-numbers" saved by the test \(sha256:[0-9a-f]{64}\)$/),
    ]);
    const later = await valueOf(
      `return {
         product: await skills.call("add-numbers", { a: 2, b: 3, mode: "product" }),
         described: await skills.describe("add-numbers"),
         same: skills["add-numbers"] === skills["add-numbers"],
       };`,
    );
    expect(later).toEqual({
      product: 6,
      described: {
        name: 'add-numbers',
        description: 'Adds two numbers',
        language: 'typescript',
        code: "return input.mode === 'product' ? input.a * input.b : input.a + input.b;",
        inputSchema: ADD_SCHEMA,
      },
      same: true,
    });
  });

  it.each([
    ['a missing field', '{ a: 1 }', 'input.b is required but missing'],
    ['a field of the wrong type', '{ a: 1, b: "2" }', 'input.b must be number, not string'],
    ['a value outside its enum', '{ a: 1, b: 2, mode: "max" }', 'input.mode must be one of ["sum","product"]; got "max"'],
    ['not an object', '7', 'input must be object, not number'],
  ])('refuses input with %s before the skill runs, saying which field', async (_, input, problem) => {
    await library.save({
      name: 'add-numbers',
      description: 'Adds',
      code: 'globalThis.ran = true; return 0;',
      inputSchema: ADD_SCHEMA,
    });
    const value = await valueOf(
      `try { await skills["add-numbers"](${input}); return "called"; }
       catch (e) { return { caught: e.name + ": " + e.message, ran: globalThis.ran ?? false }; }`,
    );
    expect(value).toEqual({ caught: `TypeError: skills["add-numbers"](input): ${problem}; the skill did not run`, ran: false });
  });

  it('runs a TypeScript skill, and a JavaScript one written by hand', async () => {
    await library.save({
      name: 'greet',
      description: 'Greets',
      code: 'interface In { who: string }\nconst given: In = input as In;\nreturn `hello ${given.who}`;',
    });
    await library.save({ name: 'twice', description: 'Doubles', code: 'return input * 2;', language: 'javascript' });
    expect(await valueOf('return [await skills.greet({ who: "ada" }), await skills.twice(21)];')).toEqual(['hello ada', 42]);
  });

  it('gives a skill tools, load() and other skills, in the calling script', async () => {
    const state: StateCaller = async (request) => (request.call === 'state.load' ? { value: `loaded ${request.key}` } : null);
    await library.save({
      name: 'inner',
      description: 'Echoes through the tool',
      code: 'const result = await tools.echo({ said: input }); return JSON.parse(result.content[0].text).said;',
    });
    await library.save({
      name: 'outer',
      description: 'Calls inner and load',
      code: 'return { echoed: await skills.inner(input), loaded: await load("k") };',
    });
    expect(await valueOf('return await skills.outer("hi");', { callState: state })).toEqual({ echoed: 'hi', loaded: 'loaded k' });
  });

  it("names the skill in what a skill throws, each skill's name in turn, and keeps ToolRefused a ToolRefused", async () => {
    await library.save({ name: 'breaks', description: 'Throws', code: 'throw new TypeError("no good");' });
    await library.save({ name: 'calls-breaks', description: 'Calls breaks', code: 'return await skills.breaks();' });
    await library.save({
      name: 'calls-missing',
      description: 'Calls a skill that is not there',
      code: 'return await skills.brakes();',
    });
    const value = await valueOf(
      `const caught = [];
       for (const name of ["breaks", "calls-breaks", "calls-missing"]) {
         try { await skills[name](); } catch (e) { caught.push([e.constructor.name, e.message, e.cause?.message ?? null]); }
       }
       return caught;`,
    );
    expect(value).toEqual([
      ['Error', 'skill "breaks": TypeError: no good', 'no good'],
      ['Error', 'skill "calls-breaks": Error: skill "breaks": TypeError: no good', 'skill "breaks": TypeError: no good'],
      [
        'ToolRefused',
        expect.stringMatching(
          /^skill "calls-missing": ToolRefused: SKILL_UNKNOWN: no skill named "brakes" in the skills directory \(it has [^)]*\); did you mean "breaks"\?$/,
        ),
        expect.stringMatching(/^SKILL_UNKNOWN/),
      ],
    ]);
  });

  it('refuses an unknown skill as ToolRefused with the closest names, and a syntax error names the skill', async () => {
    await library.save({ name: 'summarize', description: 'Sums', code: 'return 1;' });
    await library.save({ name: 'broken', description: 'Does not parse', code: 'return (;', language: 'javascript' });
    const value = await valueOf(
      `const caught = [];
       for (const name of ["sumarize", "broken"]) {
         try { await skills[name](); } catch (e) { caught.push(e.name + ": " + e.message); }
       }
       return caught;`,
    );
    expect(value).toEqual([
      expect.stringMatching(
        /^ToolRefused: SKILL_UNKNOWN: no skill named "sumarize" in the skills directory \(it has broken, summarize\); did you mean "summarize"\?$/,
      ),
      expect.stringMatching(/^SyntaxError: skill "broken": /),
    ]);
  });

  it('picks up an edit by hand in the next script', async () => {
    await library.save({ name: 'version', description: 'Says its version', code: 'return 1;', language: 'javascript' });
    expect(await valueOf('return await skills.version();')).toBe(1);
    await writeFile(join(directory, 'version', 'skill.js'), 'return 2;');
    expect(await valueOf('return await skills.version();')).toBe(2);
  });

  it('refuses a save where saving is off, under a reserved name, and over a skill without overwrite', async () => {
    await library.save({ name: 'taken', description: 'Here first', code: 'return 1;' });
    const save = (name: string, extra = ''): string =>
      `try { await skills.save({ name: "${name}", description: "d", code: "return 2;"${extra} }); return "saved"; }
       catch (e) { return e.name + ": " + e.message; }`;
    expect(await valueOf(save('list'))).toMatch(/^ToolRefused: SKILL_NAME_INVALID: "list" is one of skills' own calls/);
    expect(await valueOf(save('taken'))).toMatch(/^ToolRefused: SKILL_EXISTS: a skill named "taken" exists/);
    expect(await valueOf(`${save('taken', ', overwrite: true').replace('return "saved"', 'return await skills.taken()')}`)).toBe(
      2,
    );
    const off = caller({ allowed: false, why: 'saving is off here' });
    expect(await valueOf(save('fresh'), { callSkills: off })).toBe(
      'ToolRefused: SKILL_SAVE_REFUSED: skill "fresh" was not saved: saving is off here',
    );
    expect(await valueOf(save('Bad_Name'))).toMatch(/^ToolRefused: SKILL_NAME_INVALID: a skill's name is/);
  });

  it("checks save's fields in the script", async () => {
    expect(
      await valueOf(
        'try { await skills.save({ name: "x", description: "d", code: 5 }); } catch (e) { return e.name + ": " + e.message; }',
      ),
    ).toBe('TypeError: skills.save({name, description, code, inputSchema?, overwrite?}): code must be a string, not number');
  });

  it('answers quietly for then and toJSON, so skills can be awaited and printed', async () => {
    expect(
      await valueOf('const s = await skills; return [typeof skills.then, typeof skills.list, JSON.stringify(skills)];'),
    ).toEqual(['undefined', 'function', '{}']);
  });

  it('finds a saved skill with searchTools, named as a script calls it, but never as a tool', async () => {
    const tools = [
      ...toolEntries('echo'),
      {
        name: 'word-count',
        description: 'Counts the words of a text',
        inputSchema: { type: 'object' },
        declaration: '',
        skill: true,
      },
    ];
    const value = await valueOf(
      `let asTool;
       try { tools["word-count"] } catch (e) { asTool = e.message }
       return { hits: searchTools("count words").map((hit) => hit.name), all: ALL_TOOLS.map((t) => t.name), asTool };`,
      { tools },
    );
    expect(value).toEqual({
      hits: ['skills["word-count"]'],
      all: ['echo'],
      asTool: 'tools["word-count"] is not a tool. ALL_TOOLS lists every tool.',
    });
  });

  it('refuses every skills call as SKILLS_OFF on a server without skills', async () => {
    const ret = await runScript('await skills.list();');
    expect(ret.status).toBe('failed');
    expect(ret.error).toMatch(/^ToolRefused: SKILLS_OFF: skills.list\(\) was refused: this server was started without skills/);
  });
});
