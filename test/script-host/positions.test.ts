/**
 * Errors point at the user's own line and column, on every line, the first included, in
 * JavaScript and in TypeScript (whose types are stripped in the server first).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptChild } from '../../src/script-host/script-child.js';
import type { EndMessage } from '../../protocol/contract.js';
import { waitForNoChildren } from '../support/processes.js';
import { runScript } from '../support/scripts.js';

afterEach(async () => {
  expect(await waitForNoChildren(process.pid)).toEqual([]);
});

/** Five lines, each with a type on it in the TypeScript version; `@` marks where line `n` goes wrong. */
const JS_LINES = ['const a = 1;', 'const b = [a];', 'const c = { b };', 'function f(x) { return x; }', 'const d = f(c);'];
const TS_LINES = [
  'const a: number = 1;',
  'const b: number[] = [a] as number[];',
  'const c: { b: number[] } = { b };',
  'function f<T>(x: T): T { return x; }',
  'const d = f<typeof c>(c);',
];

/** The script with line `n` (1-based) ending in a throw, and the column where `new Error` stands on it. */
function throwingOn(lines: readonly string[], n: number): { code: string; column: number } {
  const edited = lines.map((line, i) => (i === n - 1 ? `${line} throw new Error("line ${n}");` : line));
  return { code: edited.join('\n'), column: edited[n - 1]!.indexOf('throw') + 1 };
}

describe('where an error is said to be', () => {
  for (const [language, lines] of [
    ['JavaScript', JS_LINES],
    ['TypeScript', TS_LINES],
  ] as const) {
    it(`a runtime error on each line of ${language} names that line and the column QuickJS gives the same code with no types`, async () => {
      for (let n = 1; n <= lines.length; n++) {
        const { code } = throwingOn(lines, n);
        const plain = throwingOn(
          JS_LINES.map((line, i) => line.padEnd(lines[i]!.length)),
          n,
        );
        // JavaScript's reference is the same code: its own run is the reference.
        const ret = await runScript(code);
        const reference = plain.code === code ? ret : await runScript(plain.code);
        const at = /\(script:(\d+):(\d+)\)/.exec(ret.error ?? '');
        expect(at?.[1], `${language} line ${n}: ${ret.error}`).toBe(String(n));
        expect(at?.[2], `${language} line ${n}`).toBe(/\(script:\d+:(\d+)\)/.exec(reference.error ?? '')?.[1]);
      }
    });

    it(`a syntax error on each line of ${language} names that line and its column`, async () => {
      for (let n = 1; n <= lines.length; n++) {
        const edited = lines.map((line, i) => (i === n - 1 ? `${line} const = 1;` : line));
        const ret = await runScript(edited.join('\n'));
        expect(ret.status).toBe('failed');
        const column = edited[n - 1]!.indexOf('const = 1') + 'const '.length + 1;
        expect(ret.error, `${language} line ${n}`).toMatch(new RegExp(`^SyntaxError: .*\\n {4}at script:${n}:${column}$`));
      }
    });
  }

  it('says a script that ends with something open ended early, at the end of its last line', async () => {
    for (const code of ['return 1 +', 'const a: number = 1;\nreturn (a', 'if (true) {\n  const x = [1,']) {
      const ret = await runScript(code);
      const lines = code.split('\n');
      expect(ret.error, code).toBe(
        'SyntaxError: the script ended early: a bracket, string, template or expression it opened is never closed\n' +
          `    at script:${lines.length}:${lines.at(-1)!.length + 1}`,
      );
    }
  });

  it('the engine says the same of JavaScript that reaches it unstripped', async () => {
    // What QuickJS itself reports past the script's last line, for a script no stripper saw.
    const child = new ScriptChild({ memoryMaxBytes: 32 * 1024 * 1024, notifyMax: 0, showMaxBytes: 0, log: () => {} });
    const ended = new Promise<EndMessage>((resolve) =>
      child.listen({ message: (message) => message.t === 'end' && resolve(message) }),
    );
    child.send({ t: 'start', code: 'const a = 1;\nreturn a +', tools: '[]', unlisted: [] });
    const end = await ended;
    expect(end.error).toBe(
      'SyntaxError: the script ended early: a bracket, string, template or expression it opened is never closed\n    at script:2:11',
    );
    await child.gone;
  });

  it('a stack through functions on several lines of TypeScript names each line', async () => {
    const ret = await runScript(
      [
        'function inner(n: number): never {',
        '  throw new RangeError(`n=${n}`);',
        '}',
        'const outer = (n: number): void => inner(n * 2);',
        'outer(21 as number);',
      ].join('\n'),
    );
    expect(ret.error).toMatch(
      /^RangeError: n=42\n {4}at inner \(script:2:\d+\)\n {4}at outer \(script:4:\d+\)\n {4}at <anonymous> \(script:5:\d+\)$/,
    );
  });
});
