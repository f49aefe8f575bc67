// Bundles the two programs that Node runs, the server (src/main) and a script's child
// (engine/main), each from tsc's output into a folder of ES modules of its own: dist/server/ and
// dist/child/. One file per lazily loaded part (each command's modules, the child's engine) rather
// than a module per source file: resolving and reading ~100 modules took ~60 ms of the server's
// start (bench/ANALYSIS.md). Not minified, so a stack trace in a log still reads.
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

// CommonJS dependencies call require(); an ES module has none of its own.
const REQUIRE_SHIM =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

const PROGRAMS = [
  { entry: 'dist/src/main.js', outdir: 'dist/server' },
  { entry: 'dist/engine/main.js', outdir: 'dist/child' },
];

export async function bundleNodePrograms(root) {
  for (const { entry, outdir } of PROGRAMS) {
    rmSync(new URL(outdir, root), { recursive: true, force: true });
    await build({
      absWorkingDir: fileURLToPath(root),
      entryPoints: { main: entry },
      outdir,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      // A package's ES module build where it has one (jsonc-parser's CommonJS one requires by computed paths).
      mainFields: ['module', 'main'],
      banner: { js: REQUIRE_SHIM },
      logLevel: 'warning',
    });
  }
}
