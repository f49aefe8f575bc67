// What a build is made from, as one digest: every file of the three worlds and the shared folders,
// the build's own scripts, the TypeScript configs and the lockfile (the engine's wasm and the
// bundled packages come from node_modules as the lockfile pins them). Equal digests, equal dist/.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const INPUT_DIRS = ['src', 'engine', 'prelude', 'protocol', 'common', 'bench', 'build'];
const INPUT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.base.json', 'prelude/tsconfig.json'];

function filesUnder(root, dir) {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(root, path);
    return entry.isFile() ? [path] : [];
  });
}

/** The digest of the build's inputs under `root`, with the Node version that runs the build. */
export function buildInputsDigest(root) {
  const hash = createHash('sha256').update(`node ${process.version}\n`);
  const files = [...INPUT_DIRS.flatMap((dir) => filesUnder(root, dir)), ...INPUT_FILES].sort();
  for (const file of new Set(files)) {
    hash
      .update(`${relative(root, join(root, file))}\n`)
      .update(readFileSync(join(root, file)))
      .update('\n');
  }
  return hash.digest('hex');
}
