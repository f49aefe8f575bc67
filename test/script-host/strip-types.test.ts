import { beforeAll, describe, expect, test } from 'vitest';
import { loadTypeStripper, stripTypes } from '../../engine/strip-types.js';
import { runScript } from '../support/scripts.js';

function strip(code: string): string {
  const stripped = stripTypes(code);
  if ('error' in stripped) throw new Error(stripped.error);
  return stripped.code;
}

/** Where each marker string stands, as [line, column]. */
function positionsOf(code: string, markers: readonly string[]): Array<[number, number]> {
  return markers.map((marker) => {
    const before = code.slice(0, code.indexOf(marker));
    return [before.split('\n').length, before.length - before.lastIndexOf('\n')];
  });
}

beforeAll(() => loadTypeStripper());

describe('stripTypes', () => {
  test('gives plain JavaScript back unchanged', () => {
    for (const code of [
      'return 1 + 1',
      'const xs = await Promise.all([1, 2].map(async (x) => x * 2));\nreturn xs.filter((x) => x > 2 && x < 9)',
      'const re = /a<b>(c)/g; return `t ${re.source}`',
      'label: for (const k of [1]) { if (k) break label }\nreturn a?.b ?? c',
      '// a comment: string\n/* and: number */ return "x: number"',
    ]) {
      expect(strip(code), code).toBe(code);
    }
  });

  test('strips annotations, interfaces, type aliases, `as`, `satisfies`, `!`, generics and casts, keeping every token at its line and column', () => {
    const code = [
      'interface Row { id: number; name: string }',
      'type Pair<A, B> = { a: A; b: B };',
      'const rows: Row[] = [{ id: 1, name: "a" }] as Row[]; const MARK1 = 1;',
      'function first<T>(items: T[], fallback?: T): T | undefined { return items[0] ?? fallback; } const MARK2 = 2;',
      'const pair = { a: 1, b: "x" } satisfies Pair<number, string>; const MARK3 = pair!.a;',
      'const cast = <string>"s"; const generic = first<Row>(rows); const MARK4 = 4;',
      'return [MARK1, MARK2, MARK3, MARK4, cast, generic];',
    ].join('\n');
    const out = strip(code);
    const markers = ['MARK1', 'MARK2', 'MARK3', 'MARK4', 'return', 'first(items', 'cast'];
    expect(out).not.toMatch(/interface|: number|as Row|satisfies|<T>|<string>|<Row>/);
    expect(positionsOf(out, markers.slice(0, 5))).toEqual(positionsOf(code, markers.slice(0, 5)));
    expect(out.split('\n')).toHaveLength(code.split('\n').length);
  });

  test('turns an enum into an object, and the lines after it keep their numbers', () => {
    const code = 'enum Color {\n  Red,\n  Green = 5,\n  Blue,\n}\nconst after: number = Color.Blue; return [after, Color[5]];';
    const out = strip(code);
    expect(out.split('\n')).toHaveLength(6);
    expect(positionsOf(out, ['after', 'Color[5]'])).toEqual(positionsOf(code, ['after', 'Color[5]']));
    // eslint-disable-next-line @typescript-eslint/no-implied-eval, @typescript-eslint/no-unsafe-call -- runs the stripped code, to show it means what the TypeScript did
    expect(new Function(`return (function () {\n${out}\n})()`)()).toEqual([6, 'Green']);
  });

  test('reports a syntax error at the line and column of the script', () => {
    expect(stripTypes('const = 5')).toEqual({ error: 'SyntaxError: Unexpected token\n    at script:1:7' });
    expect(stripTypes('const a: number = 1;\nconst b: string = "x" "y";')).toEqual({
      error: 'SyntaxError: Unexpected token, expected ";"\n    at script:2:23',
    });
  });

  test('says a script that ends with something still open ended early, at the end of its last line', () => {
    const endedEarly = 'SyntaxError: the script ended early: a bracket, string, template or expression it opened is never closed';
    expect(stripTypes('return 1 +')).toEqual({ error: `${endedEarly}\n    at script:1:11` });
    expect(stripTypes('const a: number = 1;\nreturn (a')).toEqual({ error: `${endedEarly}\n    at script:2:10` });
    expect(stripTypes('if (x) {\n  y()')).toEqual({ error: `${endedEarly}\n    at script:2:6` });
  });

  test('refuses a namespace, which stripping would drop with its values, but not a declared one', () => {
    expect(stripTypes('const a = 1;\n  namespace N { export const b = 2 }\nreturn N.b')).toEqual({
      error:
        'SyntaxError: TypeScript namespaces are not supported in scripts (stripping types would drop its values): use an object instead\n    at script:2:3',
    });
    expect(strip('declare namespace N { const b: number }\nreturn "namespace N { }"')).toBe('\nreturn "namespace N { }"');
  });

  test('strips a long script as well: its child, not the server, spends the time', async () => {
    const long = `const x: number = 1;\n${'// filler\n'.repeat(30_000)}return x`;
    expect(await runScript(long)).toMatchObject({ status: 'finished', value: '1' });
  });
});
