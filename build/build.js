// The build: compiles the three worlds, bundles the prelude into one function, lists the engine's
// exports its code calls, snapshots the prelude, and bundles the server and a script's child, the
// two programs Node runs. A build whose inputs are those of the last one (dist/.build-inputs holds
// their digest) does nothing, so `npm test` and `npm link` after a build don't build again;
// `npm run build -- --force` builds anyway.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildInputsDigest } from './build-inputs.js';
import { bundleNodePrograms } from './bundle-node.js';
import { bundlePrelude } from './bundle-prelude.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
const run = (args) => execFileSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
const stamp = fileURLToPath(new URL('../dist/.build-inputs', import.meta.url));

const inputs = buildInputsDigest(root);
if (!process.argv.includes('--force') && existsSync(stamp) && readFileSync(stamp, 'utf8') === inputs) {
  console.log('build: dist/ is up to date with its sources (npm run build -- --force builds anyway)');
  process.exit(0);
}
// From an empty dist/: a module whose source is gone must not stay importable (a test importing
// it passed on a machine that had built before). A build that fails part way leaves no stamp.
rmSync(fileURLToPath(new URL('../dist/', import.meta.url)), { recursive: true, force: true });

run([tsc, '-p', 'tsconfig.json']);
run([tsc, '-p', 'prelude/tsconfig.json']);
bundlePrelude(new URL('../dist/prelude/', import.meta.url), new URL('../dist/prelude.js', import.meta.url));
run(['dist/engine/build-exports.js']);
run(['dist/engine/build-snapshot.js']);
await bundleNodePrograms(new URL('..', import.meta.url));
writeFileSync(stamp, inputs);
