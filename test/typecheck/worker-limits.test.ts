import { afterAll, describe, expect, test } from 'vitest';
import { ScriptChecker } from '../../src/typecheck/script-checker.js';
import { toolOf } from './catalogs.js';

const catalog = [
  toolOf('get-sum', { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] }),
];
// Past a second, on any machine: each of these takes many seconds to check, or more memory than the worker has.
const checker = new ScriptChecker({ timeLimitMs: 1_000 });

afterAll(async () => {
  await checker.close();
});

const HOSTILE = {
  'deep generics: a recursive type over the permutations of nine names': [
    'type Names = "a" | "b" | "c" | "d" | "e" | "f" | "g" | "h" | "i";',
    'type Perm<U extends string, Acc extends string = ""> = [U] extends [never] ? Acc : { [K in U]: Perm<Exclude<U, K>, `${Acc}${K}`> }[U];',
    'const p: Perm<Names> = "x" as any;',
    'return p;',
  ].join('\n'),
  'a union of a hundred million members': [
    'type D = "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9";',
    'type N4 = `${D}${D}${D}${D}`;',
    'type Pairs = { [K in N4]: { [J in N4]: [K, J] }[N4] }[N4];',
    'const p: Pairs = ["0000", "0000"];',
    'return p;',
  ].join('\n'),
  'a file of a megabyte': Array.from(
    { length: 17_000 },
    (_, i) => `const v${i} = await tools["get-sum"]({ a: ${i}, b: ${i} });`,
  ).join('\n'),
};

describe("the checker's worker, under a script that costs too much", () => {
  test.each(Object.entries(HOSTILE))(
    '%s is refused as too costly, nothing run, and the next script is checked by a new worker',
    async (_what, code) => {
      // The server's event loop goes on meanwhile: the check is in the worker.
      let ticks = 0;
      const ticker = setInterval(() => (ticks += 1), 5);
      const outcome = await checker.check(code, catalog, { mode: 'error' });
      clearInterval(ticker);
      expect(outcome.kind).toBe('too-slow');
      expect('text' in outcome && outcome.text).toMatch(
        /^Refused: the type check (took longer than 1 s \(typeCheckTimeoutMs\)|needed more than its 256 MiB of memory); nothing ran\./,
      );
      expect(ticks).toBeGreaterThan(0);
      expect(
        await checker.check('return (await tools["get-sum"]({ a: 1, b: 2 })).content[0].text;', catalog, { mode: 'error' }),
      ).toMatchObject({
        kind: 'passed',
      });
    },
  );
});
