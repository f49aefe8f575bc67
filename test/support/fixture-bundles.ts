/**
 * The fixture upstreams, bundled: the tests start hundreds of them, and a start of one as written
 * spent most of its 0.4 s of CPU finding and compiling the SDK's and zod's many modules; bundled
 * (the same code in one file and a shared chunk) a start takes about two thirds of that. The
 * global setup bundles them (bundleFixtures) into a folder named for what went in (the fixtures'
 * sources and the lockfile), so a run whose inputs are unchanged reuses the last run's bundles and
 * two runs never write each other's; upstreamFixture gives a test a fixture's path. A fixture that
 * reads files beside itself (import.meta) is not bundled, and runs as written.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const UPSTREAMS = fileURLToPath(new URL('../fixtures/upstreams/', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const LOCKFILE = fileURLToPath(new URL('../../package-lock.json', import.meta.url));
const CACHE = fileURLToPath(new URL('../../node_modules/.cache/codemode-mcp/', import.meta.url));

/** Where this checkout's bundles are: a folder named for the fixtures' sources (all of test/fixtures/*.mjs they may import) and the lockfile. */
function bundlesDir(): string {
  const hash = createHash('sha256');
  for (const folder of [FIXTURES, UPSTREAMS]) {
    for (const file of readdirSync(folder)
      .filter((name) => name.endsWith('.mjs'))
      .sort()) {
      hash
        .update(`${folder}${file}\0`)
        .update(readFileSync(join(folder, file)))
        .update('\0');
    }
  }
  hash.update(readFileSync(LOCKFILE));
  return join(CACHE, `fixture-upstreams-${hash.digest('hex').slice(0, 16)}`);
}

let dir: string | undefined;
const bundles = (): string => (dir ??= bundlesDir());

/** Bundles every fixture upstream that doesn't read files beside itself, unless this checkout's bundles are there already. */
export async function bundleFixtures(): Promise<void> {
  const target = bundles();
  if (existsSync(target)) return;
  const building = `${target}.${process.pid}`;
  await build({
    entryPoints: readdirSync(UPSTREAMS)
      .filter((file) => file.endsWith('.mjs') && !readFileSync(join(UPSTREAMS, file), 'utf8').includes('import.meta'))
      .map((file) => join(UPSTREAMS, file)),
    outdir: building,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
    // What the bundled CommonJS dependencies require: ESM output has no require of its own.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
  try {
    renameSync(building, target);
  } catch (error) {
    // Another run bundled the same inputs first: its bundles are these.
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(target)) throw error;
  }
}

/** The path a test starts the fixture upstream `file` (of test/fixtures/upstreams/) from: its bundle, or its source when it is not bundled. */
export function upstreamFixture(file: string): string {
  const bundled = join(bundles(), file);
  return existsSync(bundled) ? bundled : join(UPSTREAMS, file);
}
