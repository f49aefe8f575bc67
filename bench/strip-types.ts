/**
 * How the TypeScript strippers on npm compare for our use: the cost of loading each in a fresh
 * Node process (paid once per server), the cost of stripping a 200-line script (paid per
 * script), and whether each keeps the script's lines and columns and handles enums.
 *
 *   npm install --prefix /tmp/strippers typescript sucrase amaro ts-blank-space esbuild oxc-transform @swc/wasm-typescript
 *   node dist/bench/strip-types.js /tmp/strippers
 *
 * The candidates are not dependencies of ours: they are read from the directory given. Results
 * go to stdout as a Markdown table (bench/STRIP-TYPES.md keeps the last run).
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/support/package-root.js';
import { loadTypeStripper, stripTypes } from '../engine/strip-types.js';
import { median } from './measure.js';

const dir = process.argv[2];
if (dir === undefined) {
  process.stderr.write('usage: node dist/bench/strip-types.js <directory where the candidates are installed>\n');
  process.exit(2);
}
const RUNS = Number(process.argv[3] ?? 9);
/** Strips before the warm ones are timed. */
const WARM_STRIPS = 20;
const require = createRequire(join(dir, 'package.json'));

type Strip = (code: string) => string;

/** Each candidate's load, as Node would do it, and its strip call; the mode that keeps positions where it has one. */
const CANDIDATES: Record<string, { load: string; make: () => Strip; cwd?: string }> = {
  // What the server runs: sucrase, its source map, and the columns put back (engine/strip-types.ts).
  'ours: sucrase + columns realigned': {
    load: "import('./dist/engine/strip-types.js').then((m) => m.loadTypeStripper())",
    cwd: PACKAGE_ROOT,
    make: () => (code) => {
      // The candidates get the whole wrapper; ours wraps the body itself.
      const stripped = stripTypes(code.slice('(async function () {\n'.length, -'\n})'.length));
      if ('error' in stripped) throw new Error(stripped.error);
      return `(async function () {\n${stripped.code}\n})`;
    },
  },
  typescript: {
    load: "require('typescript')",
    make: () => {
      const ts = require('typescript') as typeof import('typescript');
      return (code) =>
        ts.transpileModule(code, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } })
          .outputText;
    },
  },
  sucrase: {
    load: "require('sucrase')",
    make: () => {
      const { transform } = require('sucrase') as { transform: (code: string, options: object) => { code: string } };
      return (code) => transform(code, { transforms: ['typescript'], disableESTransforms: true }).code;
    },
  },
  'amaro (strip-only)': {
    load: "require('amaro')",
    make: () => {
      const { transformSync } = require('amaro') as { transformSync: (code: string, options: object) => { code: string } };
      return (code) => transformSync(code, { mode: 'strip-only' }).code;
    },
  },
  '@swc/wasm-typescript (strip-only)': {
    load: "require('@swc/wasm-typescript')",
    make: () => {
      const { transformSync } = require('@swc/wasm-typescript') as {
        transformSync: (code: string, options: object) => { code: string };
      };
      return (code) => transformSync(code, { mode: 'strip-only' }).code;
    },
  },
  'ts-blank-space': {
    load: "require('ts-blank-space')",
    make: () => {
      const blank = (require('ts-blank-space') as { default: Strip }).default;
      return (code) => blank(code);
    },
  },
  esbuild: {
    load: "require('esbuild')",
    make: () => {
      const { transformSync } = require('esbuild') as { transformSync: (code: string, options: object) => { code: string } };
      return (code) => transformSync(code, { loader: 'ts' }).code;
    },
  },
  'oxc-transform': {
    load: "require('oxc-transform')",
    make: () => {
      const { transformSync } = require('oxc-transform') as {
        transformSync: (file: string, code: string, options: object) => { code: string };
      };
      return (code) => transformSync('script.ts', code, {}).code;
    },
  },
};

/** A 200-line script as a model writes one: interfaces, annotations, generics, `as`, calls. */
function twoHundredLines(): string {
  const lines = ['interface Row { id: number; name: string; tags?: string[] }', 'type Pair<A, B> = { a: A; b: B };'];
  for (let i = 0; i < 197; i++) {
    switch (i % 4) {
      case 0:
        lines.push(`const v${i}: Pair<number, string> = { a: ${i}, b: "x${i}" } as Pair<number, string>;`);
        break;
      case 1:
        lines.push(`function f${i}<T extends Row>(row: T, n: number = ${i}): T[] { return [row].filter((r: T) => r.id > n); }`);
        break;
      case 2:
        lines.push(`const r${i} = (await tools["t${i}"]({ path: "/a/${i}" })).content[0] as { type: "text"; text: string };`);
        break;
      default:
        lines.push(`let s${i}: string | undefined = r${i - 1}.text.split("\\n").map((l: string): string => l.trim()).join(",");`);
    }
  }
  lines.push('return { done: true };');
  return `(async function () {\n${lines.join('\n')}\n})`;
}

/** `x` stays at the same line and column through the strip: the probe's own marker. */
const POSITION_PROBE = '(async function () {\nconst a: number = 1, b = a as number; const mark = "x";\nreturn mark;\n})';
const ENUM_PROBE = '(async function () {\nenum Color { Red, Green = 5, Blue }\nreturn Color.Blue;\n})';

function keepsPositions(strip: Strip): boolean {
  const out = strip(POSITION_PROBE);
  const at = (text: string): [number, number] => {
    const index = text.indexOf('"x"');
    const before = text.slice(0, index).split('\n');
    return [before.length, before.at(-1)!.length];
  };
  return at(out).join(':') === at(POSITION_PROBE).join(':');
}

function handlesEnums(strip: Strip): boolean {
  try {
    return (
      // eslint-disable-next-line @typescript-eslint/no-implied-eval, @typescript-eslint/no-unsafe-call -- the probe runs what the stripper made, as Node would
      (new Function(`return ${strip(ENUM_PROBE).trim().replace(/;$/, '')}`)() as () => Promise<unknown>) !== undefined &&
      strip(ENUM_PROBE).includes('Blue')
    );
  } catch {
    return false;
  }
}

/** The load in a fresh process, by its own clock, so Node's start is left out. */
function loadMs(load: string, cwd: string): number {
  const script = `const t = performance.now(); Promise.resolve(${load}).then(() => process.stdout.write(String(performance.now() - t)))`;
  return Number(
    execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { createRequire } from 'node:module'; const require = createRequire(process.cwd() + '/'); ${script}`,
      ],
      { cwd, encoding: 'utf8' },
    ),
  );
}

await loadTypeStripper();
const script = twoHundredLines();
const rows: string[] = [];
for (const [name, candidate] of Object.entries(CANDIDATES)) {
  let strip: Strip;
  try {
    strip = candidate.make();
  } catch (error) {
    process.stderr.write(`${name}: not installed in ${dir} (${(error as Error).message.split('\n')[0]})\n`);
    continue;
  }
  const loads = Array.from({ length: RUNS }, () => loadMs(candidate.load, candidate.cwd ?? dir));
  const first = performance.now();
  strip(script);
  const firstMs = performance.now() - first;
  // Warm: the server strips every script, so the JIT has long since compiled the stripper.
  for (let i = 0; i < WARM_STRIPS; i++) strip(script.replace('done', `warm${i}`));
  const times: number[] = [];
  for (let i = 0; i < 3 * RUNS; i++) {
    const started = performance.now();
    strip(script.replace('done', `done${i}`));
    times.push(performance.now() - started);
  }
  rows.push(
    `| ${name} | ${median(loads).toFixed(0)} ms | ${firstMs.toFixed(1)} ms | ${median(times).toFixed(2)} ms | ${keepsPositions(strip) ? 'yes' : 'no'} | ${handlesEnums(strip) ? 'yes' : 'no'} |`,
  );
  process.stderr.write(`${rows.at(-1)}\n`);
}

process.stdout.write(
  [
    `Node ${process.version}, ${RUNS} fresh processes per load, ${3 * RUNS} strips per candidate after ${WARM_STRIPS} to warm up, medians; the script is ${script.split('\n').length - 2} lines, ${script.length} characters.`,
    '',
    '| candidate | load, fresh process | first strip | strip, warm | keeps lines and columns | enums |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n'),
);
