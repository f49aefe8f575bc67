// A setup file of every test file (vitest.config.ts).
import { afterAll, afterEach } from 'vitest';
import { removeTempDirs } from './temp-dirs.js';
import { endOpenWaits } from './waiting.js';

// A wait left open by a failed test would poll on into the next test: say what it waited for, and stop it.
afterEach((context) => endOpenWaits(context.task.result?.state === 'fail'));
// The temp directories a test file made are removed once it is done; a wait still open then was
// left by a hook that timed out.
afterAll(() => {
  endOpenWaits(true);
  removeTempDirs();
});
