import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CatalogTool } from '../../src/catalog/types.js';
import { TYPECHECK_DIAGNOSTICS_SHOWN } from '../../src/typecheck/outcome-text.js';
import { ScriptChecker, type CheckOptions, type CheckOutcome } from '../../src/typecheck/script-checker.js';
import { everythingCatalog, toolOf } from './catalogs.js';

// Generous: these tests are about what is found, not how fast (compiler-limits.test.ts is about that).
const checker = new ScriptChecker({ timeLimitMs: 60_000 });
let everything: readonly CatalogTool[];
const ERROR: CheckOptions = { mode: 'error' };

beforeAll(async () => {
  everything = await everythingCatalog();
});

afterAll(async () => {
  await checker.close();
});

function check(code: string, options: CheckOptions = ERROR, catalog: readonly CatalogTool[] = everything): Promise<CheckOutcome> {
  return checker.check(code, catalog, options);
}

/** The outcome's diagnostics as `line:column message`. */
function found(outcome: CheckOutcome): string[] {
  return 'diagnostics' in outcome ? outcome.diagnostics.map((d) => `${d.line}:${d.column} ${d.message}`) : [];
}

describe("what refuses a script, with server-everything's real schemas", () => {
  test('a tool name that is no tool, with the closest tool and its declaration', async () => {
    const outcome = await check('const r = await tools["ecko"]({ message: "hi" });\nreturn r;');
    expect(outcome.kind).toBe('refused');
    expect(found(outcome)).toEqual(['1:23 tools["ecko"] is not a tool. Did you mean "echo"?']);
    const text = 'text' in outcome ? outcome.text : '';
    expect(text).toMatch(
      /^Refused by the type check; nothing ran\. 1 problem in the script:\nscript:1:23: tools\["ecko"\] is not a tool/,
    );
    expect(text).toContain(
      'The tool concerned, as describe() prints it:\n/** Echoes back the input string */\ntools["echo"](args: {',
    );
  });

  test('a name that is no tool, as a property and destructured', async () => {
    const outcome = await check('await tools.get_sum({ a: 1, b: 2 });\nconst { ech } = tools;');
    expect(found(outcome)).toEqual([
      '1:13 tools["get_sum"] is not a tool. Did you mean "get-sum"?',
      '2:9 tools["ech"] is not a tool. Did you mean "echo"?',
    ]);
  });

  test('a missing required argument, pointing at the arguments and showing the tool', async () => {
    const outcome = await check('const one = 1;\nawait tools["get-sum"]({ a: one });');
    expect(found(outcome)).toEqual([
      "2:24 Property 'b' is missing in type '{ a: number; }' but required in type 'Input_get_sum'.",
    ]);
    expect(outcome.kind === 'refused' && outcome.diagnostics[0]!.tool).toBe('get-sum');
  });

  test('an argument of the wrong type, and a value outside an enum', async () => {
    const outcome = await check(
      'await tools["get-sum"]({ a: 1, b: "2" });\nawait tools["get-structured-content"]({ location: "Paris" });',
    );
    expect(found(outcome)).toEqual([
      "1:32 Type 'string' is not assignable to type 'number'.",
      `2:41 Type '"Paris"' is not assignable to type '"Chicago" | "Los Angeles" | "New York"'.`,
    ]);
  });

  test('no arguments where some are required', async () => {
    expect(found(await check('await tools.echo();'))).toEqual(['1:13 Expected 1 arguments, but got 0.']);
  });

  test('a misspelled field of a structured result, with the closest field', async () => {
    const outcome = await check(
      'const w = await tools["get-structured-content"]({ location: "Chicago" });\nreturn w.structuredContent.temprature;',
    );
    expect(found(outcome)).toEqual([
      "2:28 Property 'temprature' does not exist on type 'Output_get_structured_content'. Did you mean 'temperature'?",
    ]);
    expect(outcome.kind === 'refused' && outcome.diagnostics[0]!.tool).toBe('get-structured-content');
  });

  test('a misspelled field destructured from a structured result', async () => {
    const outcome = await check(
      'const { structuredContent } = await tools["get-structured-content"]({ location: "Chicago" });\nconst { humdity } = structuredContent;',
    );
    expect(found(outcome)).toEqual(["2:9 Property 'humdity' does not exist on type 'Output_get_structured_content'."]);
  });

  test('a result read without await', async () => {
    const outcome = await check('const r = tools.echo({ message: "x" });\nreturn r.content[0].text;');
    expect(found(outcome)).toEqual([
      "2:10 Property 'content' does not exist on type 'Promise<ToolResult<any>>'. Did you forget to use 'await'?",
    ]);
  });

  test('calling what is no function', async () => {
    const outcome = await check('const r = await tools.echo({ message: "x" });\nr.content();\nALL_TOOLS();');
    expect(found(outcome).map((line) => line.split('\n')[0])).toEqual([
      '2:3 This expression is not callable.',
      '3:1 This expression is not callable.',
    ]);
  });

  test('a misspelled global, and ones the sandbox does not have', async () => {
    expect(
      found(await check('consol.log(1);\nconst home = process.env.HOME;\nconst fs = require("fs");\ndocument.title = "x";')),
    ).toEqual([
      "1:1 Cannot find name 'consol'. Did you mean 'console'?",
      "2:14 Cannot find name 'process': a script has the language and the globals declared for it, no Node, browser or test-runner ones.",
      "3:20 Cannot find name 'require': a script has the language and the globals declared for it, no Node, browser or test-runner ones.",
      "4:1 Cannot find name 'document': a script has the language and the globals declared for it, no Node, browser or test-runner ones.",
    ]);
  });

  test('TypeScript and JavaScript with // @ts-check get the same checks', async () => {
    const ts = await check('const n: number = 1;\nawait tools["get-sum"]({ a: n });');
    const js = await check('// @ts-check\nconst n = 1;\nawait tools["get-sum"]({ a: n });');
    expect(ts.kind === 'refused' && ts.language).toBe('typescript');
    expect(js.kind === 'refused' && js.language).toBe('javascript');
    expect(found(ts).map((d) => d.slice(d.indexOf(' ')))).toEqual(found(js).map((d) => d.slice(d.indexOf(' '))));
  });

  test('lists at most ten problems, then counts the rest', async () => {
    const code = Array.from({ length: 14 }, (_, i) => `consol.log(${i});`).join('\n');
    const outcome = await check(code);
    expect(found(outcome)).toHaveLength(14);
    const text = 'text' in outcome ? outcome.text : '';
    expect(text.split('\n').filter((line) => line.startsWith('script:'))).toHaveLength(TYPECHECK_DIAGNOSTICS_SHOWN);
    expect(text).toContain('… and 4 more');
  });
});

describe('what does not refuse a script', () => {
  test.each([
    ["the README's way of reading a result", 'return (await tools["echo"]({ message: "hi" })).content[0].text;'],
    [
      "a result's other fields, as the tool sent them",
      'const r = await tools.echo({ message: "x" });\nreturn [r.extra, r.content[0].annotations, r.isError];',
    ],
    [
      'untyped JavaScript: an object grown field by field',
      'const o = {};\no.count = 1;\no.items = [];\no.items.push(2);\nreturn o;',
    ],
    ['implicit any and functions called with fewer arguments', 'function f(a, b) { return a.x + b; }\nreturn f({ x: 1 });'],
    ['strict null', 'let v = null;\nv = { a: 1 };\nconst m = new Map();\nreturn m.get("k").length + v.a;'],
    [
      'JavaScript that only JavaScript allows',
      'const ms = new Date() - new Date(0);\nlet c = 0;\nc = "many";\nreturn ms > 0 ? c : c.toUpperCase();',
    ],
    [
      'a comparison the types think cannot hold',
      'const w = await tools["get-structured-content"]({ location: "Chicago" });\nreturn w.structuredContent.conditions === 7;',
    ],
    [
      'any and casts',
      'const r = await tools["get-structured-content"]({ location: "Chicago" });\nreturn (r.structuredContent as any).extra ?? (r as any).whatever;',
    ],
    [
      'an interface-typed value stored',
      'interface Note { id: number; text: string }\nconst note: Note = { id: 1, text: "x" };\nawait store("note", note);\nreturn await load("note");',
    ],
    [
      'a tool name held in a variable',
      'for (const t of ALL_TOOLS) if (t.name === "echo") return await tools[t.name]({ message: "x" });',
    ],
    ['a TypeScript type of its own, misspelled (stripped before it runs)', 'const x: Strng = "a";\nreturn x;'],
    [
      'every guest global',
      'const hits = searchTools("sum", 3);\nconsole.log(describe(hits[0].name));\ntext("a");\nnotify({ n: 1 });\nawait sleep(1);\nclearTimeout(setTimeout(() => {}, 5));\nshow({ type: "text", text: "hi" });\nawait state.keys();\nawait resources.list();\nawait skills.list();\nawait skills["my-skill"]({ a: 1 });\ntry { await tools.echo({ message: "x" }); } catch (e) { if (e instanceof ToolRefused || e instanceof TimeoutError || e instanceof ResultTooLarge) return btoa(e.message); }\nreturn performance.now() + atob("YQ==").length;',
    ],
    [
      'fetch, Headers and Response, as the web has them (issue 49)',
      [
        'const headers = new Headers({ accept: "application/json" });',
        'headers.set("x-page", String(2));',
        'const response = await fetch("https://api.example.com/items", { method: "post", headers, body: JSON.stringify({ a: 1 }), redirect: "manual" });',
        'for (const [name, value] of response.headers) console.log(name, value);',
        'try { await fetch("https://elsewhere.example"); } catch (e) { if (e instanceof ToolRefused) console.log(e.code); }',
        'const copy = response.clone();',
        'return { ok: response.ok, status: response.status, items: (await response.json()).items, bytes: (await copy.bytes()).length };',
      ].join('\n'),
    ],
    [
      'top-level await and return',
      'const [a, b] = await Promise.all([tools.echo({ message: "a" }), tools.echo({ message: "b" })]);\nreturn a.content.concat(b.content).map((c) => c.text);',
    ],
    [
      'a name asked for with typeof, which is not there',
      'return typeof process === "undefined" && typeof missingThing === "undefined";',
    ],
    ['the language as QuickJS has it', 'return Object.groupBy([1, 2, 3], (n) => (n % 2 ? "odd" : "even"));'],
  ])('%s', async (_what, code) => {
    expect(await check(code)).toMatchObject({ kind: 'passed' });
  });

  test('a line after // @ts-ignore or // @ts-expect-error', async () => {
    expect(
      await check('// @ts-ignore\nawait tools["get-sum"]({ a: 1 });\n// @ts-expect-error: on purpose\nconsol.log(1);'),
    ).toMatchObject({
      kind: 'passed',
    });
  });

  test('// @ts-nocheck at the top: not checked, and said so', async () => {
    expect(await check('// @ts-nocheck\nawait tools["get-sum"]({ a: 1 });')).toEqual({
      kind: 'passed',
      language: 'javascript',
      note: '// @ts-nocheck: not type-checked',
    });
  });

  test('a syntax error is left to the run, which reports it as it always has', async () => {
    const outcome = await check('const = 1;');
    expect(outcome).toMatchObject({ kind: 'passed', note: 'a syntax error: not type-checked' });
    expect(outcome.kind === 'passed' && outcome.syntaxErrors?.[0]).toMatchObject({ line: 1, column: 7 });
  });

  test("names of an upstream still starting, and tools the config denies: the server's to refuse when called", async () => {
    const denied = { ...toolOf('secret', { type: 'object' }, undefined, 'vault'), name: 'vault__secret', allowed: false };
    const catalog = [...everything, denied];
    const code = 'await tools.github__list_issues({ repo: "a" });\nawait tools["vault__secret"]({});';
    expect(await check(code, { mode: 'error', unlisted: ['github__'] }, catalog)).toMatchObject({ kind: 'passed' });
    expect(found(await check(code, ERROR, catalog))).toEqual([
      '1:13 tools["github__list_issues"] is not a tool. ALL_TOOLS lists every tool; searchTools(query) finds one by what it does.',
    ]);
  });

  test("a local named tools is the script's own", async () => {
    expect(await check('const tools = { ecko: () => 1 };\nreturn tools.ecko();')).toMatchObject({ kind: 'passed' });
  });
});

describe('the modes', () => {
  const wrong = 'await tools["get-sum"]({ a: 1 });';

  test('error refuses: nothing runs', async () => {
    expect(await check(wrong, { mode: 'error' })).toMatchObject({ kind: 'refused' });
  });

  test('warn lets it run, with what was found for the answer', async () => {
    const outcome = await check(wrong, { mode: 'warn' });
    expect(outcome.kind).toBe('warned');
    expect('text' in outcome && outcome.text).toMatch(
      /^The type check found 1 problem \(typeCheck is "warn", so the script ran\):\nscript:1:24: /,
    );
  });

  test('off checks nothing, and starts no compiler', async () => {
    const idle = new ScriptChecker({ timeLimitMs: 60_000, executable: '/nonexistent/tsc' });
    expect(await idle.check(wrong, everything, { mode: 'off' })).toEqual({ kind: 'passed', note: 'typeCheck is off' });
    await idle.close();
  });

  test('a checker that cannot start says so, and the script runs unchecked', async () => {
    const broken = new ScriptChecker({ timeLimitMs: 60_000, executable: '/nonexistent/tsc' });
    const outcome = await broken.check(wrong, everything, { mode: 'error' });
    expect(outcome.kind).toBe('unavailable');
    expect('text' in outcome && outcome.text).toMatch(/^Not type-checked: the checker could not start \(.*ENOENT/);
    await broken.close();
  });
});

describe('skills', () => {
  const schema = {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  };

  test('input is typed from the input schema, in TypeScript and JavaScript alike', async () => {
    for (const language of ['typescript', 'javascript'] as const) {
      const good = await checker.checkSkill(
        { code: 'return input.a + input.b;', language, inputSchema: schema },
        everything,
        ERROR,
      );
      expect(good).toMatchObject({ kind: 'passed', language });
      const bad = await checker.checkSkill(
        { code: 'return input.a + input.c.length;', language, inputSchema: schema },
        everything,
        ERROR,
      );
      expect(found(bad)[0]).toMatch(/^1:24 Property 'c' does not exist on type/);
    }
  });

  test('a skill calls tools as a script does, and without a schema input is anything', async () => {
    const outcome = await checker.checkSkill(
      { code: 'const r = await tools["get-sum"]({ a: input.x });\nreturn r;', language: 'typescript' },
      everything,
      ERROR,
    );
    expect(found(outcome)).toEqual(["1:34 Property 'b' is missing in type '{ a: any; }' but required in type 'Input_get_sum'."]);
  });
});
