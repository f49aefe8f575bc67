// The build: compiles the three worlds, bundles the prelude into one function, lists the engine's
// exports its code calls, snapshots the prelude, and bundles the server and a script's child, the
// two programs Node runs.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bundleNodePrograms } from './bundle-node.js';
import { bundlePrelude } from './bundle-prelude.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
const run = (args) => execFileSync(process.execPath, args, { cwd: root, stdio: 'inherit' });

run([tsc, '-p', 'tsconfig.json']);
run([tsc, '-p', 'prelude/tsconfig.json']);
bundlePrelude(new URL('../dist/prelude/', import.meta.url), new URL('../dist/prelude.js', import.meta.url));
run(['dist/engine/build-exports.js']);
run(['dist/engine/build-snapshot.js']);
await bundleNodePrograms(new URL('..', import.meta.url));
