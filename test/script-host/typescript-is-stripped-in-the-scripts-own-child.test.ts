/**
 * Script text is untrusted input: turning its TypeScript into JavaScript happens in the script's
 * own child, so a text that makes the stripper fail ends that script alone, with a position, and a
 * text that makes it take long holds up nothing else (its lifetime and a stop end it).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { waitForNoChildren } from '../support/processes.js';
import { runScript, startScript } from '../support/scripts.js';

afterEach(async () => {
  expect(await waitForNoChildren(process.pid)).toEqual([]);
});

/** Nested generic arrow parameters, on which sucrase backtracks: each level about doubles its time. */
function nestedGenerics(levels: number): string {
  return `f(${'(a = <T>('.repeat(levels)}${')'.repeat(levels)})`;
}

describe('a script whose TypeScript the stripper cannot turn into JavaScript that means the same', () => {
  const ENUM_NAME = 'an enum member whose name goes over more than one line';
  const NAMESPACE = 'TypeScript namespaces are not supported in scripts';
  /** What, the script, what its error says and where. */
  const refused: ReadonlyArray<readonly [string, string, string, string]> = [
    ['an enum member name with a line continuation', 'enum E { "a\\\nb" }\nreturn E', ENUM_NAME, '1:10'],
    ['an enum member name over lines, further down', "enum E {\n  A,\n  'b\\\nc' = 2 }\nreturn E", ENUM_NAME, '3:3'],
    ['a namespace after a comment', 'const a = 1\n/* c */ namespace N { export const b = 2 }\nreturn N.b', NAMESPACE, '2:9'],
    [
      'a namespace with comments in its header',
      'namespace /* c */ N /* d */ { export const b = 2 }\nreturn N.b',
      NAMESPACE,
      '1:1',
    ],
    [
      'an exported namespace after a line comment',
      'export // c\n  namespace N.M { export const b = 2 }\nreturn 1',
      NAMESPACE,
      '2:3',
    ],
    ['a module', 'let x = 1;  module /* c */ M { export const y = 2 }\nreturn x', NAMESPACE, '1:13'],
  ];
  for (const [name, code, message, at] of refused) {
    it(`ends as failed with its position: ${name}; the next script runs`, async () => {
      const ret = await runScript(code);
      expect(ret.status, ret.error).toBe('failed');
      expect(ret.error).toMatch(new RegExp(`^SyntaxError: ${message}.*\\n {4}at script:${at}$`));
      expect(await runScript('const ok: number = 1; return ok')).toMatchObject({ status: 'finished', value: '1' });
    });
  }
});

describe('a script on which the stripper takes long', () => {
  it('holds up no other script, and its stop ends it', async () => {
    const slow = startScript(nestedGenerics(22));
    // Started after the slow one, with types of its own: its child strips it and it finishes while the slow one still strips.
    const ret = await runScript('const n: number = 2;\nreturn n * 21');
    expect(ret).toMatchObject({ status: 'finished', value: '42' });
    expect(slow.status).toBe('running');
    slow.stop('requested');
    await slow.ended;
    expect(slow.takeReturn()).toMatchObject({ status: 'stopped', stopReason: 'requested' });
  });

  it('is ended by its lifetime, as any script is', async () => {
    const ret = await runScript(nestedGenerics(22), { limits: { scriptLifetimeMs: 1_500 } });
    expect(ret).toMatchObject({ status: 'stopped', stopReason: 'lifetime' });
  });
});

describe('what the stripped script means', () => {
  it('is what the TypeScript meant where a removed type statement stood between two that JavaScript would join', async () => {
    const ret = await runScript(
      [
        'const calls: string[] = []',
        'const hook = (x: unknown) => { calls.push("hook"); return () => 0 }',
        'const keep = hook',
        'interface Shape { side: number }',
        '(function () { calls.push("iife") })()',
        'const also = keep',
        'type Alias = number',
        '[1, 2].forEach((n) => calls.push(String(n)))',
        'return calls',
      ].join('\n'),
    );
    expect(ret).toMatchObject({ status: 'finished', value: '["iife","1","2"]' });
  });

  it('is a generic call where JavaScript would read two comparisons', async () => {
    const ret = await runScript('const f = (x) => x * 2\nconst T = 1\nreturn [f<T>(21), f<T> /* c */ (1)]');
    expect(ret).toMatchObject({ status: 'finished', value: '[42,2]' });
  });
});
