import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { compileCacheDirectory } from '../../src/boot/compile-cache.js';
import { fixturePath, startServer, structuredOf, type RunningServer } from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';

const UPSTREAM = ['--', process.execPath, fixturePath('upstreams/recorder.mjs')];

/** Serves with the cache under `cacheHome` and the debug log on; waits for the cache's line. */
async function serve(cacheHome: string, env: Record<string, string> = {}): Promise<{ server: RunningServer; line: string }> {
  const server = await startServer(['--log-level', 'debug', ...UPSTREAM], { env: { XDG_CACHE_HOME: cacheHome, ...env } });
  const deadline = Date.now() + 15_000;
  for (;;) {
    const line = server
      .stderr()
      .split('\n')
      .find((candidate) => candidate.startsWith('compile cache: '));
    if (line !== undefined) return { server, line };
    if (Date.now() > deadline) throw new Error(`no compile cache line in the server's stderr:\n${server.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Runs a script and closes the server; it must have served, and left nothing behind. */
async function servesAndCloses(server: RunningServer): Promise<void> {
  const result = await server.run({ code: 'return 6 * 7' });
  expect(structuredOf(result)).toMatchObject({ status: 'finished', value: 42 });
  expect(await server.close()).toEqual([]);
}

function cacheFiles(cacheHome: string): string[] {
  return readdirSync(join(cacheHome, 'codemode-mcp', 'compile-cache'));
}

describe("V8's code cache of the server's bundle", () => {
  test('is written a second into the first start, readable by the user alone, and used by the next start', async () => {
    const home = makeTempDir('cache');
    const first = await serve(home);
    expect(first.line).toMatch(
      /^compile cache: none yet; wrote .*\/codemode-mcp\/compile-cache\/server-v[\d.]+-\w+-[0-9a-f]{16}\.cache \(\d+ bytes\)$/,
    );
    await servesAndCloses(first.server);
    const [file] = cacheFiles(home);
    const directory = join(home, 'codemode-mcp', 'compile-cache');
    expect(statSync(directory).mode & 0o777).toBe(0o700);
    expect(statSync(join(directory, file!)).mode & 0o777).toBe(0o600);

    const second = await serve(home);
    expect(second.line).toBe(`compile cache: used ${join(directory, file!)}`);
    await servesAndCloses(second.server);
    expect(cacheFiles(home)).toEqual([file]);
  });

  test('a file V8 rejects (here, overwritten with other bytes) is compiled past and written anew', async () => {
    const home = makeTempDir('cache');
    const first = await serve(home);
    await first.server.close();
    const [file] = cacheFiles(home);
    const path = join(home, 'codemode-mcp', 'compile-cache', file!);
    const garbage = Buffer.alloc(statSync(path).size, 0x5a);
    writeFileSync(path, garbage);

    const second = await serve(home);
    expect(second.line).toMatch(/^compile cache: V8 rejected the file \(another Node build or other V8 flags\); wrote /);
    await servesAndCloses(second.server);
    expect(readFileSync(path).equals(garbage)).toBe(false);
    const third = await serve(home);
    expect(third.line).toBe(`compile cache: used ${path}`);
    await third.server.close();
  });

  test("removes the files of other builds for this Node, and keeps other Nodes' files", async () => {
    const home = makeTempDir('cache');
    const first = await serve(home);
    await first.server.close();
    const directory = join(home, 'codemode-mcp', 'compile-cache');
    const [current] = cacheFiles(home);
    const otherBuild = `server-${process.version}-${process.arch}-0123456789abcdef.cache`;
    const otherNode = `server-v0.0.1-${process.arch}-0123456789abcdef.cache`;
    writeFileSync(join(directory, otherBuild), 'x');
    writeFileSync(join(directory, otherNode), 'x');
    writeFileSync(join(directory, current!), 'not a cache');

    const second = await serve(home);
    expect(second.line).toMatch(/; removed 1 of other builds$/);
    await second.server.close();
    expect(cacheFiles(home).sort()).toEqual([current, otherNode].sort());
  });

  test('a cache directory that cannot be made: the server serves, and the debug log says what to do', async () => {
    const parent = makeTempDir('cache');
    const notADirectory = join(parent, 'a-file');
    writeFileSync(notADirectory, '');
    const { server, line } = await serve(notADirectory);
    expect(line).toMatch(
      /^compile cache: none yet; could not write .*a-file\/codemode-mcp\/compile-cache\/server-.*\.cache \(.*\); each start compiles the server's bundle again \(set XDG_CACHE_HOME to a directory you can write to, or NODE_DISABLE_COMPILE_CACHE=1 to stop trying\)$/,
    );
    await servesAndCloses(server);
  });

  test('NODE_DISABLE_COMPILE_CACHE=1 turns it off: nothing is read or written', async () => {
    const home = makeTempDir('cache');
    const { server, line } = await serve(home, { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(line).toBe('compile cache: off (NODE_DISABLE_COMPILE_CACHE=1)');
    await servesAndCloses(server);
    expect(readdirSync(home)).toEqual([]);
  });

  test("lives in the user's cache directory on each platform", () => {
    expect(compileCacheDirectory({ XDG_CACHE_HOME: '/x' }, 'linux')).toBe('/x/codemode-mcp/compile-cache');
    expect(compileCacheDirectory({ XDG_CACHE_HOME: '' }, 'linux')).toMatch(/\/\.cache\/codemode-mcp\/compile-cache$/);
    expect(compileCacheDirectory({}, 'darwin')).toMatch(/\/Library\/Caches\/codemode-mcp\/compile-cache$/);
    expect(compileCacheDirectory({ LOCALAPPDATA: 'C:\\L' }, 'win32')).toBe(join('C:\\L', 'codemode-mcp', 'compile-cache'));
  });
});
