/**
 * Generated TypeScript, seeded so a failure repeats: each program is written twice, as TypeScript
 * (semicolons left out where JavaScript's automatic ones could join lines, type-only statements
 * with comments anywhere, generics nested deep, enums with odd member names) and as the
 * JavaScript it means, written by hand. The stripped TypeScript must compute what the JavaScript
 * does; shapes that stripping would change are refused with a position; and every script given to
 * a real child gets an ending, with the next one still served.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadTypeStripper, stripTypes } from '../../engine/strip-types.js';
import { runScript } from '../support/scripts.js';
import { seededRandom } from '../fixtures/seeded-random.mjs';

const PROGRAMS = 300;
const REFUSED = 150;
const THROUGH_A_CHILD = 4;

interface Program {
  readonly ts: string;
  readonly js: string;
}

class Writer {
  readonly ts: string[] = ['const out: unknown[] = []'];
  readonly js: string[] = ['const out = [];'];
  constructor(readonly next: () => number) {}

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** A comment, or none, to put between tokens: at least a space. */
  comment(): string {
    return this.pick([' ', ' /* c */ ', ' /* a\n b */ ', ' // c\n']);
  }

  /** A comment on the line, or a space: after a keyword that TypeScript reads as one only with its name on its line. */
  inline(): string {
    return this.pick([' ', ' /* c */ ', '/**/ ']);
  }
}

const FOLLOWERS: ReadonlyArray<(n: number) => string> = [
  (n) => `(() => out.push(${n}))()`,
  (n) => `[${n}, ${n + 1}].forEach((x) => out.push(x))`,
  (n) => `\`t${n}\`.length > 0 && out.push("t${n}")`,
  (n) => `;+${n} && out.push(${n})`,
];

/** Statements that are only types, written as the generator's comments fall. */
const TYPE_STATEMENTS: ReadonlyArray<(w: Writer, n: number) => string> = [
  (w, n) => `${w.comment()}interface${w.inline()}I${n}${w.comment()}{ a: number; b?: string }`,
  (w, n) => `type${w.inline()}A${n}<T>${w.comment()}= { x: T } | string`,
  (w, n) => `declare${w.inline()}const d${n}: number`,
  (w, n) => `declare function df${n}(a: number): void`,
  (w, n) => `declare${w.inline()}namespace${w.inline()}DN${n}${w.comment()}{ const z: number }`,
  (w, n) => `type${w.inline()}B${n} = number;${w.comment()}interface J${n} {}`,
  (w, n) => `import${w.inline()}type { R${n} } from "./r"`,
  (w, n) => `import { type R${n}${w.comment()}} from "./r"`,
  (w, n) => `export type${w.inline()}{ R${n} }`,
  (w, n) => `abstract class K${n}${w.comment()}{ abstract m(): void }`,
];

/** Nested generics, `depth` deep. */
function nested(depth: number): string {
  return `${'Array<'.repeat(depth)}T${'>'.repeat(depth)}`;
}

const STEPS: ReadonlyArray<(w: Writer, n: number) => void> = [
  // A statement with no `;`, a type-only statement, and a line JavaScript could join to the first.
  (w, n) => {
    const follower = w.pick(FOLLOWERS)(n);
    w.ts.push(`const hook${n} = (...a: unknown[]) => { out.push("hook"); return () => 0 }`, `const k${n} = hook${n}`);
    w.ts.push(w.pick(TYPE_STATEMENTS)(w, n), follower.replace(/^;/, ''));
    w.js.push(
      `const hook${n} = (...a) => { out.push("hook"); return () => 0 };`,
      `const k${n} = hook${n};`,
      `${follower.replace(/^;/, '')};`,
    );
  },
  // Annotations, `as`, `satisfies`, `!`.
  (w, n) => {
    w.ts.push(`const v${n}: number | undefined = ${n} as number`, `out.push((v${n}! + 1) satisfies number)`);
    w.js.push(`const v${n} = ${n};`, `out.push((v${n} + 1));`);
  },
  // Generics nested deep, in a declaration and in calls that JavaScript would read as comparisons.
  (w, n) => {
    const depth = 1 + Math.floor(w.next() * 8);
    w.ts.push(
      `const g${n} = <T,>(x: ${nested(depth)}, y?: T): ${nested(depth)} => x`,
      `out.push(g${n}<number>([${n}] as any)${w.comment()}.length)`,
    );
    w.ts.push(`const id${n} = (x: number) => x`, `out.push(id${n}<number>${w.comment()}(${n}))`);
    w.js.push(
      `const g${n} = (x, y) => x;`,
      `out.push(g${n}([${n}]).length);`,
      `const id${n} = (x) => x;`,
      `out.push(id${n}(${n}));`,
    );
  },
  // An enum with odd member names.
  (w, n) => {
    w.ts.push(`enum E${n} { A, "b c" = ${n + 5}, 'd-e', "\\u0066"${w.comment()}, G = \`x\ny\`.length }`);
    w.ts.push(`out.push(E${n}.A, E${n}["b c"], E${n}["d-e"], E${n}.f, E${n}[${n + 5}], E${n}.G)`);
    w.js.push(`out.push(0, ${n + 5}, ${n + 6}, ${n + 7}, "b c", 3);`);
  },
  // A function overload, whose signature is removed.
  (w, n) => {
    w.ts.push(
      `out.push("o${n}")`,
      `function over${n}(a: string): string`,
      `function over${n}(a: unknown) { return a }`,
      `out.push(over${n}("x"))`,
    );
    w.js.push(`out.push("o${n}");`, `function over${n}(a) { return a }`, `out.push(over${n}("x"));`);
  },
];

function program(seed: number): Program {
  const w = new Writer(seededRandom(seed));
  const steps = 2 + Math.floor(w.next() * 5);
  for (let n = 0; n < steps; n++) w.pick(STEPS)(w, n);
  w.ts.push('return out');
  w.js.push('return out;');
  return { ts: w.ts.join('\n'), js: w.js.join('\n') };
}

/** A namespace or module with values, comments anywhere in and before its header; or an enum member name over lines. */
function refused(seed: number): { readonly code: string; readonly line: number } {
  const w = new Writer(seededRandom(seed));
  const before = w.pick(['const a = 1', 'const a = 1;', '{}', '']);
  const exported = w.pick(['', `export${w.inline()}`]);
  const header =
    w.next() < 0.8
      ? `${w.comment()}${exported}${w.pick(['namespace', 'module'])}${w.inline()}N${w.pick(['', '.M'])}${w.comment()}{ export const b = 2 }`
      : `enum E { A, ${w.pick(['"', "'"])}x\\\ny${w.pick(['"', "'"])}${w.comment()}}`;
  const code = `${before}\n${header}\nreturn 1`;
  const keyword = /namespace|module|x\\/.exec(code)!;
  return { code, line: code.slice(0, keyword.index).split('\n').length };
}

/** Runs a script body as Node would, for what it computes. */
async function evaluate(body: string): Promise<unknown> {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- runs generated code, to compare what two forms compute
  const run = new Function(`return (async function () {\n${body}\n})()`) as () => Promise<unknown>;
  return run();
}

beforeAll(() => loadTypeStripper());

describe('generated TypeScript', () => {
  it(`computes what the JavaScript it means computes, once stripped (${PROGRAMS} programs)`, async () => {
    for (let seed = 1; seed <= PROGRAMS; seed++) {
      const { ts, js } = program(seed);
      const stripped = stripTypes(ts);
      if ('error' in stripped) throw new Error(`seed ${seed}: ${stripped.error}\n${ts}`);
      expect(stripped.code.split('\n'), `seed ${seed}: the lines`).toHaveLength(ts.split('\n').length);
      expect(await evaluate(stripped.code), `seed ${seed}:\n${ts}\n---\n${stripped.code}`).toEqual(await evaluate(js));
    }
  });

  it(`is refused with the position of what stripping would change (${REFUSED} programs)`, () => {
    for (let seed = 1; seed <= REFUSED; seed++) {
      const { code, line } = refused(seed);
      const stripped = stripTypes(code);
      expect(stripped, `seed ${seed}:\n${code}`).toEqual({
        error: expect.stringMatching(new RegExp(`^SyntaxError: .*\\n {4}at script:${line}:\\d+$`)),
      });
    }
  });

  it('run in real children gets an ending each, what the JavaScript computes, and the next script still runs', async () => {
    for (let seed = 1; seed <= THROUGH_A_CHILD; seed++) {
      const { ts, js } = program(seed * 7);
      const ret = await runScript(ts);
      expect(ret.status, `seed ${seed * 7}: ${ret.error}`).toBe('finished');
      expect(JSON.parse(ret.value!)).toEqual(await evaluate(js));
      const bad = await runScript(refused(seed * 7).code);
      expect(bad.status).toBe('failed');
      expect(bad.error).toMatch(/^SyntaxError: .*\n {4}at script:\d+:\d+$/);
    }
    expect(await runScript('return 1 + 1')).toMatchObject({ status: 'finished', value: '2' });
  });
});
