/**
 * The test files that start bin/codemode-mcp.js as a process of its own (issue 44, item 7): only
 * those that check what only a process shows, each listed here with what that is. Everything else
 * serves in the test's own process (in-process-server.ts, in-process-http.ts,
 * in-process-command.ts), with its scripts' children and its upstreams still real processes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './mcp-client.js';

/** 20: the most test files that may start the binary; a twenty-first moves a file in process first. */
const MAX_BINARY_TEST_FILES = 20;

/** Each file that starts the binary, and what only a process shows there. */
const STARTS_THE_BINARY: Readonly<Record<string, string>> = {
  'test/boot/compile-cache.test.ts': "V8's code cache of the bundle, read and written at the process's start",
  'test/cli/missing-build.test.ts': 'the bin without its build: what it prints and its exit status',
  'test/e2e/bad-input.test.ts': "stdio framing over real pipes, and the process's memory reading a 100 MB line",
  'test/e2e/clients.test.ts': "SDK 1.x and 2.x clients' own stdio transports, which start the server themselves",
  'test/e2e/command-signals.test.ts': 'signals to each command and to the server, and the exit statuses they give',
  'test/e2e/early-start.test.ts': "the upstreams started before the server's modules load, at the process's start",
  'test/e2e/examples.test.ts': 'the client blocks of the README and docs/clients.md, run as a client runs them',
  'test/e2e/http-boundary.test.ts': 'where --http may listen, and what a start that may not listen says and exits with',
  'test/e2e/http-drain.test.ts': "SIGTERM's drain of an HTTP instance",
  'test/e2e/http-load.test.ts': "an instance's memory and CPU under load",
  'test/e2e/http-nginx-load.test.ts': 'instances behind nginx, under load',
  'test/e2e/http-nginx.test.ts': 'instances behind nginx, each its own process',
  'test/e2e/logs.test.ts': "the log file and level set at the process's start, a write limit on the process, stderr as written",
  'test/e2e/run-command.test.ts': "`run` as a person runs it: exit statuses, stdin, a real terminal's questions",
  'test/e2e/self-upstream.test.ts': "a config that starts the bin again, known by the process's own path and environment",
  'test/e2e/shutdown.test.ts': 'a shutdown within the time a client gives a process, by stdin closing or a signal',
  'test/e2e/upstream-environment.test.ts': 'the environment the process was started with, and what of it an upstream gets',
  'test/package/bundle.test.ts': 'the .mcpb bundle, installed and started',
  'test/package/install.test.ts': 'the npm package, installed and started',
};

/** Whether a test file starts the binary: through a helper that starts it, or by the path of the bin given to a process. */
function startsTheBinary(text: string): boolean {
  if (/\b(startServer|startHttpServer|runBin|rawServer)\(|new RawServer\(/.test(text)) return true;
  return /\bBIN\b/.test(text) && /\b(spawn|spawnSync|execa|execFile|StdioClientTransport)\b/.test(text);
}

function testFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFilesUnder(path);
    return entry.name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

const starting = testFilesUnder(join(ROOT, 'test'))
  .filter((file) => startsTheBinary(readFileSync(join(ROOT, file), 'utf8')))
  .sort();

describe('the test files that start the binary', () => {
  it(`are at most ${MAX_BINARY_TEST_FILES}`, () => {
    expect(Object.keys(STARTS_THE_BINARY).length).toBeLessThanOrEqual(MAX_BINARY_TEST_FILES);
  });

  it('are each listed with what only a process shows there; any other serves in the test process', () => {
    const unlisted = starting.filter((file) => !(file in STARTS_THE_BINARY));
    expect(
      unlisted,
      'these start bin/codemode-mcp.js: move them onto startInProcess, startInProcessHttp or runInProcess, or list what only a process shows there',
    ).toEqual([]);
  });

  it('are all still starting it (a file moved in process leaves the list)', () => {
    expect(Object.keys(STARTS_THE_BINARY).sort()).toEqual(starting);
  });
});
