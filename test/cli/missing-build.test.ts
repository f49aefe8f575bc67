import { cpSync, mkdirSync, rmSync } from 'node:fs';

import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the executable without a build', () => {
  // Regression: it said "npm run build", which on a fresh clone fails for want of TypeScript.
  it('says to run npm install in the package, where it is, and exits 1', async () => {
    const root = makeTempDir('nobuild');
    dirs.push(root);
    mkdirSync(join(root, 'bin'));
    cpSync(BIN, join(root, 'bin', 'codemode-mcp.js'));
    const result = await execa(process.execPath, [join(root, 'bin', 'codemode-mcp.js'), '--help'], { reject: false });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(
      /^codemode-mcp: the build is missing \(.*\); run "npm install" in .*codemode-nobuild-\w+\/ \(it installs what the build needs, then builds\)$/,
    );
  });
});
