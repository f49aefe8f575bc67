import { chmodSync, copyFileSync, rmSync } from 'node:fs';

import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dirs.js';

const program = new URL('../fixtures/spawn-fails.mjs', import.meta.url).pathname;

describe('a server whose Node binary is gone (upgraded under it)', () => {
  it('crashes each run with the spawn error, keeps no dead child counted, leaves no directory, and closes', async () => {
    // Regression: a failed spawn emits 'error' and 'close' but never 'exit', which the cleanup waited for.
    const dir = makeTempDir('spawn-fails');
    try {
      const node = join(dir, 'node');
      copyFileSync(process.execPath, node);
      chmodSync(node, 0o755);
      const { stdout } = await execa(node, [program], { env: { TMPDIR: dir }, extendEnv: false });
      const { answers, closed, leftDirs } = JSON.parse(stdout) as { answers: string[]; closed: string; leftDirs: number };
      expect(answers).toHaveLength(5);
      for (const answer of answers)
        expect(answer).toMatch(/^Script \S+ crashed \| calls: 0 answered \| error: .*spawn \S+ ENOENT/);
      expect(closed).toBe('closed');
      expect(leftDirs).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
