/**
 * A real browser for the approval page's tests: Debian's headless Chromium, driven by
 * playwright-core, which downloads nothing (the binary is the system's, its path given). Each launch
 * has a fresh profile in a temp directory; `close` ends the browser and waits until none of its
 * processes is left. Where /usr/bin/chromium is missing the tests skip, saying so (.ci/run installs
 * it, and under CI=true a missing one fails instead).
 */
import { existsSync, readFileSync } from 'node:fs';
import { chromium, type BrowserContext } from 'playwright-core';
import { childPidsOf, commandLineOf, statFieldsOf } from './processes.js';
import { makeTempDir } from './temp-dirs.js';
import { until } from './waiting.js';

export const CHROMIUM = '/usr/bin/chromium';

/** Whether the browser tests can run here; false skips them (never under CI, which installs it). */
export const HAVE_CHROMIUM = existsSync(CHROMIUM) || process.env.CI === 'true';

if (!HAVE_CHROMIUM) {
  process.stderr.write(
    `${CHROMIUM} is not installed here (apt-get install chromium): skipping the approval page's browser tests\n`,
  );
}

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  readonly context: BrowserContext;
  /** Closes the browser and resolves once no process of it is left under this test process. */
  close(): Promise<void>;
}

/** This process's descendants that are the browser's (a zombie's command line is empty: it is found by its name). */
function browserProcesses(): number[] {
  return childPidsOf(process.pid).filter(
    (pid) => (commandLineOf(pid) ?? '').includes('chromium') || /\(chromium\)/.test(readStat(pid)),
  );
}

function readStat(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return '';
  }
}

export async function launchBrowser(): Promise<TestBrowser> {
  const context = await chromium.launchPersistentContext(makeTempDir('chromium-profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1000, height: 900 },
  });
  return {
    context,
    close: async () => {
      const started = browserProcesses();
      await context.close();
      // Gone from /proc altogether: a zombie left unreaped counts as left behind.
      const left = (): number[] => [...started, ...browserProcesses()].filter((pid) => statFieldsOf(pid) !== undefined);
      await until(
        "the browser's processes to be gone",
        () => left().length === 0,
        () => `left: ${left().join(', ')}`,
      );
    },
  };
}
