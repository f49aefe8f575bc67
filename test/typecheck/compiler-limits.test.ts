/**
 * The checker's bounds (issue 47): a check that waits past typeCheckTimeoutMs (its turn, a compiler
 * starting) answers then, the script running unchecked; a script whose own check runs past the
 * limit or the compiler's memory is refused (run unchecked in `warn`), the compiler killed, and the
 * next check has a new one; the server's event loop goes on meanwhile.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { ScriptChecker } from '../../src/typecheck/script-checker.js';
import { fixturePath } from '../support/mcp-client.js';
import { childPidsOf, commandLineOf } from '../support/processes.js';
import { toolOf } from './catalogs.js';

const catalog = [
  toolOf('get-sum', { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] }),
];
// Past a second, on any machine: each of these takes many seconds to check, or more memory than the compiler has.
const checker = new ScriptChecker({ timeLimitMs: 1_000 });

afterAll(async () => {
  await checker.close();
  expect(childPidsOf(process.pid)).toEqual([]);
});

const OVERRUN =
  "the check of its types (took longer than 1 s \\(typeCheckTimeoutMs\\)|needed more than the compiler's 256 MiB of memory)";
const REFUSED = new RegExp(`^Refused by the type check; nothing ran: ${OVERRUN}\\. Simplify its types`);
const UNCHECKED_IN_WARN = new RegExp(`^Not type-checked: ${OVERRUN}, so the script ran unchecked \\(typeCheck is "warn"\\)`);

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

describe('a script whose check costs too much', () => {
  test.each(Object.entries(HOSTILE))(
    '%s: refused by the time limit or the memory, the compiler killed, and a new one checks the next script',
    async (_what, code) => {
      // Its own check has the whole limit: the compiler started and warmed before it counts.
      await checker.ready(catalog);
      // The server's event loop goes on meanwhile: the check is in the compiler's process.
      let ticks = 0;
      const ticker = setInterval(() => (ticks += 1), 5);
      const outcome = await checker.check(code, catalog, { mode: 'error' });
      clearInterval(ticker);
      expect(outcome).toMatchObject({ kind: 'too-costly', text: expect.stringMatching(REFUSED) as string });
      expect(ticks).toBeGreaterThan(0);
      // A new compiler, started and warmed before the next check's time counts.
      await checker.ready(catalog);
      const next = await checker.check('return (await tools["get-sum"]({ a: 1 })).content[0].text;', catalog, { mode: 'error' });
      expect(next).toMatchObject({ kind: 'refused', diagnostics: [{ line: 1, tool: 'get-sum' }] });
    },
  );
});

/** The fixture's process, once it has become `sleep` (never-listens.sh). */
const stuckCompilers = () => childPidsOf(process.pid).filter((pid) => commandLineOf(pid) === '/bin/sleep 600');

describe('typeCheck "warn"', () => {
  test('a script whose own check costs too much runs unchecked, its answer saying why', async () => {
    await checker.ready(catalog);
    const outcome = await checker.check(HOSTILE['a union of a hundred million members'], catalog, { mode: 'warn' });
    expect(outcome).toMatchObject({ kind: 'too-slow', text: expect.stringMatching(UNCHECKED_IN_WARN) as string });
  });
});

describe('a compiler that never starts', () => {
  test('holds no check past its time limit: the script runs unchecked, and closing the checker ends the compiler', async () => {
    const stuck = new ScriptChecker({ timeLimitMs: 1_000, executable: fixturePath('typecheck/never-listens.sh') });
    try {
      const outcome = await stuck.check('return 1;', catalog, { mode: 'error' });
      expect(outcome).toMatchObject({
        kind: 'too-slow',
        reason: 'the check could not begin within 1 s (typeCheckTimeoutMs; the checker was busy or starting)',
      });
      // The compiler is still starting (TYPECHECK_PREPARE_MAX_MS): the check gave up waiting, not the start.
      expect(stuckCompilers()).toHaveLength(1);
    } finally {
      await stuck.close();
    }
    expect(stuckCompilers()).toEqual([]);
  });
});
