/**
 * Type stripping never joins two statements the author's text kept apart (issue 45): every form
 * of declaration that stripping removes, and every type that can end a line, in front of a line
 * that JavaScript would read as going on with the line before (`(`, `[`, a template). Each script
 * says what it computes when its statements stay apart, as TypeScript reads it (TypeScript's own
 * compiler agrees, where it emits JavaScript for the form); the stripped script must compute that,
 * in Node and in the real engine in a script's child. Regression: after `import type { Row } from
 * "./row"`, `const keep = hook` swallowed `(function () {…})()` as a call of `hook`.
 */
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadTypeStripper, stripTypes } from '../../engine/strip-types.js';
import { runScript } from '../support/scripts.js';

/** Lines JavaScript would join to a line before them that has no `;`, and what each computes on its own. */
type Follower = '(' | '[' | 'template';
const FOLLOWERS: Readonly<Record<Follower, { readonly line: string; readonly computes: readonly unknown[] }>> = {
  '(': { line: '(function () { out.push("iife") })()', computes: ['iife'] },
  '[': { line: '[1].forEach((x) => out.push(x))', computes: [1] },
  template: { line: '`t`.length > 0 && out.push("t")', computes: ['t'] },
};

/** Statements stripping removes whole (`N` is a number, for a name of its own), each put between `const keep = hook` and a follower. */
const STATEMENTS: ReadonlyArray<readonly [form: string, code: string, typescriptEmits: boolean]> = [
  ['import type { }', 'import type { Row } from "./row"', false],
  ['import type default', 'import type RowN from "./row"', false],
  ['import type * as', 'import type * as RowsN from "./row"', false],
  ['import { type }', 'import { type RowN } from "./row"', false],
  ['import { type, type }', 'import { type RowN, type ColN } from "./row"', false],
  ['import alias, unused', 'import RowN = Rows.Row', false],
  ['export type { }', 'export type { RowN }', false],
  ['export type { } from', 'export type { RowN } from "./row"', false],
  ['export type alias', 'export type RowN = number', false],
  ['export interface', 'export interface RowN { a: number }', false],
  ['export declare', 'export declare const rowN: number', false],
  ['export default interface', 'export default interface RowN { a: number }', false],
  ['type alias', 'type RowN = number', true],
  ['type alias over lines', 'type RowN =\n  | number\n  | string', true],
  ['type alias with a comment', '/* the row */ type RowN = number // its id', true],
  ['interface', 'interface RowN { a: number }', true],
  ['interface over lines', 'interface RowN {\n  a: number\n}', true],
  ['interface extending', 'interface RowN extends Base<string> { a: number }', true],
  ['declare const', 'declare const rowN: number', true],
  ['declare let', 'declare let rowN: number', true],
  ['declare var', 'declare var rowN: number', true],
  ['declare function', 'declare function rowN(): void', true],
  ['declare class', 'declare class RowN { a: number }', true],
  ['declare enum', 'declare enum RowN { A }', true],
  ['declare const enum', 'declare const enum RowN { A }', true],
  ['declare module', 'declare module "rowN" { const a: number }', true],
  ['declare namespace', 'declare namespace RowN { const a: number }', true],
  ['declare global', 'declare global { const rowN: number }', true],
  ['an overload signature', 'function rowN(a: string): string', true],
  ['abstract class', 'abstract class RowN { abstract a(): void }', true],
  ['enum', 'enum RowN { A, B }', true],
  ['const enum', 'const enum RowN { A, B }', true],
  ['two type statements', 'type RowN = number\ninterface ColN { a: number }', true],
];

/** Class members stripping removes whole, between `x = hook` and a computed field, `["k"] = 5`. */
const MEMBERS: ReadonlyArray<readonly [form: string, code: string]> = [
  ['an abstract method', 'abstract m(): void'],
  ['an abstract property', 'abstract p: number'],
  ['a private abstract method', 'private abstract m(): void'],
  ['a protected abstract property', 'protected abstract p: number'],
  ['an abstract getter', 'abstract get g(): number'],
  ['an abstract override', 'abstract override m(): void'],
  ['a method overload', 'o(a: string): string'],
  ['a public method overload', 'public o(a: string): string'],
  ['a static method overload', 'static s(a: string): string'],
  ['a declared field', 'declare d: number'],
  ['a private declared field', 'private declare d: number'],
  ['a declared readonly field', 'declare readonly d: number'],
  ['an index signature', 'static [key: string]: unknown'],
  ['a field with only its type', 'y: number'],
  ['an optional field with only its type', 'y?: number'],
];

/** Modifiers stripping removes from a computed field after `x = hook`. */
const MODIFIERS = ['public', 'private', 'protected', 'readonly', 'override', 'private readonly'];

/** Types that end a line after an expression or a declaration: TypeScript ends the statement there. */
const LINE_ENDING_TYPES: ReadonlyArray<readonly [form: string, code: string]> = [
  ['as', 'const keep = hook as Row'],
  ['as, a generic', 'const keep = hook as Array<Row>'],
  ['satisfies', 'const keep = hook satisfies Row'],
  ['an annotation, no value', 'let keep: Row'],
  ['an annotation over lines', 'let keep: {\n  a: number\n}'],
  ['a definite assignment', 'let keep!: Row'],
];

/** Types after which TypeScript goes on with the next line too, as JavaScript does: nothing may be put between. */
const CONTINUING_TYPES: ReadonlyArray<readonly [form: string, code: string]> = [
  ['a non-null assertion', 'const keep = hook!'],
  ['type arguments', 'const keep = hook<Row>'],
];

const PROLOGUE = 'const out: unknown[] = []\nconst hook = (...a: unknown[]) => { out.push("hook"); return () => 0 }';

function statementScript(code: string, follower: Follower, n = 0): string {
  return `${PROLOGUE}\nconst keep = hook\n${code.replaceAll('N', String(n))}\n${FOLLOWERS[follower].line}\nreturn out`;
}

function memberScript(member: string): string {
  return [
    PROLOGUE,
    'class Base { m() {} }',
    'abstract class Row extends Base {',
    '  x = hook',
    `  ${member}`,
    '  ["k"] = 5',
    '  o(a: unknown) { return a }',
    '  static s(a: unknown) { return a }',
    '  get g() { return 1 }',
    '}',
    'class Built extends Row { m() {} }',
    'const built = new Built() as unknown as { x: unknown; k: unknown }',
    'return [built.x === hook, built.k, (hook as unknown as { k?: unknown }).k ?? null]',
  ].join('\n');
}

/** What a member script computes when the member and the computed field stay apart. */
const MEMBERS_APART = [true, 5, null];

/** Runs a script body as Node would, for what it computes. */
async function evaluate(body: string): Promise<unknown> {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- runs stripped code, to see what it computes
  const run = new Function(`return (async function () {\n${body}\n})()`) as () => Promise<unknown>;
  return run();
}

function strip(code: string): string {
  const stripped = stripTypes(code);
  if ('error' in stripped) throw new Error(`${stripped.error}\n${code}`);
  expect(stripped.code.split('\n'), 'the lines').toHaveLength(code.split('\n').length);
  return stripped.code;
}

/** The script as TypeScript's own compiler emits it: what the author's text means, by the language's definition. */
function asTypeScriptEmits(code: string): string {
  const wrapped = `(async function () {\n${code}\n})`;
  const { outputText } = ts.transpileModule(wrapped, {
    compilerOptions: { target: ts.ScriptTarget.ESNext, useDefineForClassFields: true },
  });
  return outputText.slice(outputText.indexOf('{') + 1, outputText.lastIndexOf('}'));
}

beforeAll(() => loadTypeStripper());

describe('type stripping, before a line that JavaScript would join to the one before it', () => {
  describe.each(Object.keys(FOLLOWERS) as Follower[])('a line starting with %s', (follower) => {
    it.each(STATEMENTS)('after %s, runs as its own statement', async (_form, code, typescriptEmits) => {
      const script = statementScript(code, follower);
      const computes = FOLLOWERS[follower].computes;
      expect(await evaluate(strip(script)), strip(script)).toEqual(computes);
      if (typescriptEmits) expect(await evaluate(asTypeScriptEmits(script))).toEqual(computes);
    });

    it.each(LINE_ENDING_TYPES)('after a line ending in %s, runs as its own statement', async (_form, code) => {
      const script = `${PROLOGUE}\n${code}\n${FOLLOWERS[follower].line}\nreturn out`;
      const computes = FOLLOWERS[follower].computes;
      expect(await evaluate(strip(script)), strip(script)).toEqual(computes);
      expect(await evaluate(asTypeScriptEmits(script))).toEqual(computes);
    });

    it.each(CONTINUING_TYPES)('after a line ending in %s, goes on with it, as TypeScript does', async (_form, code) => {
      const script = `${PROLOGUE}\n${code}\n${FOLLOWERS[follower].line}\nreturn out`;
      const typescript = await evaluate(asTypeScriptEmits(script)).catch((error: Error) => error.name);
      const stripped = await evaluate(strip(script)).catch((error: Error) => error.name);
      expect(stripped).toEqual(typescript);
      expect(stripped).not.toEqual(FOLLOWERS[follower].computes);
    });
  });

  it.each(MEMBERS)('after %s in a class, a computed field is a field of its own', async (_form, member) => {
    const script = memberScript(member);
    expect(await evaluate(strip(script)), strip(script)).toEqual(MEMBERS_APART);
    expect(await evaluate(asTypeScriptEmits(script))).toEqual(MEMBERS_APART);
  });

  it.each(MODIFIERS)('after a field, a computed field marked %s is a field of its own', async (modifier) => {
    const script = memberScript('').replace('  ["k"] = 5', `  ${modifier} ["k"] = 5`);
    expect(await evaluate(strip(script)), strip(script)).toEqual(MEMBERS_APART);
    expect(await evaluate(asTypeScriptEmits(script))).toEqual(MEMBERS_APART);
  });

  it.each([
    ['a field', 'y: number'],
    ['a field assigned a value', 'x2 = hook as Row'],
  ])('after %s whose type ends the line, a computed field is a field of its own', async (_form, member) => {
    const script = memberScript(member);
    expect(await evaluate(strip(script)), strip(script)).toEqual(MEMBERS_APART);
  });

  it('refuses `export =`, which would become an assignment to a module the script does not have', () => {
    expect(stripTypes('const a = 1\nexport = a')).toEqual({
      error: 'SyntaxError: "export =" has no place in a script: return the value instead\n    at script:2:1',
    });
  });
});

describe('type stripping, in the real engine', () => {
  // One script a form, every follower in it: each child runs what the stripper made, as a script would.
  it('runs every declaration form in front of each follower as the author wrote it', async () => {
    for (const [form, code] of STATEMENTS) {
      const script = [
        PROLOGUE,
        ...(Object.keys(FOLLOWERS) as Follower[]).flatMap((follower, n) => [
          `const keep${n} = hook`,
          code.replaceAll('N', String(n)),
          FOLLOWERS[follower].line,
        ]),
        'return out',
      ].join('\n');
      const ret = await runScript(script);
      expect(ret.status, `${form}: ${ret.error}`).toBe('finished');
      expect(JSON.parse(ret.value!), form).toEqual(Object.values(FOLLOWERS).flatMap((follower) => follower.computes));
    }
  });

  it('runs every class member form before a computed field as the author wrote it', async () => {
    for (const [form, member] of MEMBERS) {
      const ret = await runScript(memberScript(member));
      expect(ret.status, `${form}: ${ret.error}`).toBe('finished');
      expect(JSON.parse(ret.value!), form).toEqual(MEMBERS_APART);
    }
  });
});
