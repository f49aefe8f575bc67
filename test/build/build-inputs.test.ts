import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: the build's own script, plain JavaScript without declarations.
import { buildInputsDigest } from '../../build/build-inputs.js';

const digestOf = buildInputsDigest as (root: string) => string;
let root = '';
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A tree with every input the build reads, one file each. */
function sourceTree(): string {
  root = mkdtempSync(join(tmpdir(), 'codemode-build-inputs-'));
  for (const dir of ['src', 'engine', 'prelude', 'protocol', 'common', 'bench', 'build']) {
    mkdirSync(join(root, dir));
    writeFileSync(join(root, dir, 'a.ts'), `// ${dir}\n`);
  }
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.base.json', 'prelude/tsconfig.json']) {
    writeFileSync(join(root, file), '{}\n');
  }
  return root;
}

describe("the build's inputs digest, which lets a build with nothing new do nothing", () => {
  it('is the same for the same files, and changes with a file changed, added, removed or renamed', () => {
    const tree = sourceTree();
    const first = digestOf(tree);
    expect(digestOf(tree)).toBe(first);
    const seen = new Set([first]);
    const changes = [
      () => writeFileSync(join(tree, 'src', 'a.ts'), '// changed\n'),
      () => {
        mkdirSync(join(tree, 'engine', 'deep'));
        writeFileSync(join(tree, 'engine', 'deep', 'b.ts'), '');
      },
      () => rmSync(join(tree, 'prelude', 'a.ts')),
      () => writeFileSync(join(tree, 'prelude', 'z.ts'), '// prelude\n'),
      () => writeFileSync(join(tree, 'package-lock.json'), '{"lockfileVersion":3}\n'),
    ];
    for (const change of changes) {
      change();
      const digest = digestOf(tree);
      expect(seen.has(digest)).toBe(false);
      seen.add(digest);
    }
  });
});
