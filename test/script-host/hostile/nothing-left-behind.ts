import { afterAll, afterEach, expect } from 'vitest';
import { waitForNoChildren } from '../../support/processes.js';
import { runScript } from '../../support/scripts.js';

/**
 * The checks every hostile file makes: after each test no process of it is left, and once the
 * file's hostile scripts have all run, the next script runs normally. Each script has a child of
 * its own, so what a hostile script could break for the next is the host side, this process: one
 * ordinary script after them all shows it wasn't (a script per test showed the same, at a child's
 * start each).
 */
export function checkNothingLeftBehind(): void {
  afterEach(async () => {
    expect(await waitForNoChildren(process.pid)).toEqual([]);
  });
  afterAll(async () => {
    const next = await runScript('return 1 + 1');
    expect(next.value).toBe('2');
    expect(await waitForNoChildren(process.pid)).toEqual([]);
  });
}
