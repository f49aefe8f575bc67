// Bundles the two programs that Node runs, from tsc's output. The server (src/main) is one
// CommonJS file, dist/server/main.cjs, which dist/server/boot.js (src/boot) loads with V8's code
// cache: a script's compile can be cached on Node 20, an ES module's can't (src/boot/compile-cache.ts).
// A script's child (engine/main) is a folder of ES modules, dist/child/, one file per lazily
// loaded part. One bundle rather than a module per source file: resolving and reading each
// module took a good part of the server's start (bench/ANALYSIS.md, "Figures from the code's
// comments"). Not minified, so a stack trace
// in a log still reads.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { jsonrpcWriteFix } from './jsonrpc-write-fix.js';

// CommonJS dependencies call require(); an ES module has none of its own.
const REQUIRE_SHIM =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";
// The CommonJS bundle's import.meta.url, which the package's root is found from.
const IMPORT_META_URL_SHIM = "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;";

const COMMON = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  // A package's ES module build where it has one (jsonc-parser's CommonJS one requires by computed paths).
  mainFields: ['module', 'main'],
  logLevel: 'warning',
  // Non-ASCII characters in code as escapes; what is left of them is in comments (asciiOnly).
  charset: 'ascii',
};

const BUILDS = [
  {
    outdir: 'dist/server',
    builds: [
      {
        entryPoints: ['dist/src/main.js'],
        outfile: 'dist/server/main.cjs',
        format: 'cjs',
        // The Redis client is a dependency of its own, loaded only with --state-url (src/state/).
        external: ['@redis/client'],
        define: { 'import.meta.url': '__importMetaUrl' },
        banner: { js: IMPORT_META_URL_SHIM },
      },
      { entryPoints: ['dist/src/boot/load-server.js'], outfile: 'dist/server/boot.js', format: 'esm' },
      // TypeScript's native compiler's API (src/typecheck/native-modules.ts), ES modules made one
      // CommonJS file the server requires at its first type check.
      {
        entryPoints: ['dist/src/typecheck/native-modules.js'],
        outfile: 'dist/server/typescript-native.cjs',
        format: 'cjs',
        plugins: [jsonrpcWriteFix],
        define: { 'import.meta.url': '__importMetaUrl' },
        banner: { js: IMPORT_META_URL_SHIM },
      },
    ],
  },
  {
    outdir: 'dist/child',
    builds: [
      {
        entryPoints: { main: 'dist/engine/main.js' },
        outdir: 'dist/child',
        splitting: true,
        format: 'esm',
        banner: { js: REQUIRE_SHIM },
      },
    ],
  },
];

/**
 * The server's bundle in ASCII alone, so its loader reads it as Latin-1 (faster than decoding
 * UTF-8) into a one-byte string (half the memory V8 keeps of its source). With
 * `charset: 'ascii'` esbuild escapes every non-ASCII character of the code; those it leaves are
 * in comments (dependencies' em dashes), where a '?' changes nothing.
 */
function asciiOnly(file) {
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.replace(/\P{ASCII}/gu, '?'));
}

export async function bundleNodePrograms(root) {
  for (const { outdir, builds } of BUILDS) {
    rmSync(new URL(outdir, root), { recursive: true, force: true });
    for (const options of builds) await build({ absWorkingDir: fileURLToPath(root), ...COMMON, ...options });
  }
  asciiOnly(new URL('dist/server/main.cjs', root));
}
