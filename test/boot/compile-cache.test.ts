import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { COMPILE_CACHE_FILES_KEPT, compileCacheDirectory } from '../../src/boot/compile-cache.js';
import { fixturePath, startServer, stderrLine, structuredOf, type RunningServer } from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';

const UPSTREAM = ['--', process.execPath, fixturePath('upstreams/recorder.mjs')];

/**
 * Serves with the cache under `cacheHome` and the debug log on; waits for the cache's line. The
 * cache is the server's bundle's, so no pool: a start makes no script child, and a run makes one.
 */
async function serve(cacheHome: string, env: Record<string, string> = {}): Promise<{ server: RunningServer; line: string }> {
  const server = await startServer(['--log-level', 'debug', '--pool', '0', ...UPSTREAM], {
    env: { XDG_CACHE_HOME: cacheHome, ...env },
  });
  return { server, line: await stderrLine(server, /^codemode-mcp: compile cache: /) };
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

/** A cache home where one start has written its file: the home and the file's path. */
async function writtenOnce(): Promise<{ home: string; path: string }> {
  const home = makeTempDir('cache');
  const first = await serve(home);
  await first.server.close();
  const [file] = cacheFiles(home);
  return { home, path: join(home, 'codemode-mcp', 'compile-cache', file!) };
}

describe("V8's code cache of the server's bundle", () => {
  test('is written a second into the first start, readable by the user alone, and used by the next start', async () => {
    const home = makeTempDir('cache');
    const first = await serve(home);
    expect(first.line).toMatch(
      /^codemode-mcp: compile cache: none yet; wrote .*\/codemode-mcp\/compile-cache\/server-v[\d.]+-\w+-[0-9a-f]{16}\.cache \(\d+ bytes\)$/,
    );
    await servesAndCloses(first.server);
    const [file] = cacheFiles(home);
    const directory = join(home, 'codemode-mcp', 'compile-cache');
    expect(statSync(directory).mode & 0o777).toBe(0o700);
    expect(statSync(join(directory, file!)).mode & 0o777).toBe(0o600);

    const second = await serve(home);
    expect(second.line).toBe(`codemode-mcp: compile cache: used ${join(directory, file!)}`);
    await servesAndCloses(second.server);
    expect(cacheFiles(home)).toEqual([file]);
  });

  test('a file V8 rejects (here, overwritten with other bytes) is compiled past and written anew', async () => {
    const { home, path } = await writtenOnce();
    const garbage = Buffer.alloc(statSync(path).size, 0x5a);
    writeFileSync(path, garbage);

    const second = await serve(home);
    expect(second.line).toMatch(
      /^codemode-mcp: compile cache: V8 rejected the file \(another Node build or other V8 flags\); wrote /,
    );
    await servesAndCloses(second.server);
    expect(readFileSync(path).equals(garbage)).toBe(false);
    const third = await serve(home);
    expect(third.line).toBe(`codemode-mcp: compile cache: used ${path}`);
    await third.server.close();
  });

  test('keeps the files of the builds used most recently, whatever their Node, and removes the rest', async () => {
    const home = makeTempDir('cache');
    const first = await serve(home);
    await first.server.close();
    const directory = join(home, 'codemode-mcp', 'compile-cache');
    const [current] = cacheFiles(home);
    // Five other builds, of this Node and of another, last used 1 to 5 days ago.
    const others = [1, 2, 3, 4, 5].map((days) => {
      const name = `server-${days % 2 === 0 ? 'v0.0.1' : process.version}-${process.arch}-${String(days).repeat(16)}.cache`;
      writeFileSync(join(directory, name), 'x');
      const usedAt = new Date(Date.now() - days * 86_400_000);
      utimesSync(join(directory, name), usedAt, usedAt);
      return name;
    });
    writeFileSync(join(directory, current!), 'not a cache');

    const second = await serve(home);
    expect(second.line).toMatch(/; removed 2 not used lately$/);
    await second.server.close();
    expect(cacheFiles(home).sort()).toEqual([current, ...others.slice(0, COMPILE_CACHE_FILES_KEPT - 1)].sort());
  });

  test('a start that uses its file marks it used, so that the start of another build keeps it', async () => {
    const { home, path } = await writtenOnce();
    const monthAgo = new Date(Date.now() - 30 * 86_400_000);
    utimesSync(path, monthAgo, monthAgo);

    const second = await serve(home);
    expect(second.line).toBe(`codemode-mcp: compile cache: used ${path}`);
    await second.server.close();
    expect(statSync(path).mtimeMs).toBeGreaterThan(monthAgo.getTime() + 86_400_000);
  });

  test('a cache directory that cannot be made: the server serves, and the debug log says what to do', async () => {
    const parent = makeTempDir('cache');
    const notADirectory = join(parent, 'a-file');
    writeFileSync(notADirectory, '');
    const { server, line } = await serve(notADirectory);
    expect(line).toMatch(
      /^codemode-mcp: compile cache: none yet; could not write .*a-file\/codemode-mcp\/compile-cache\/server-.*\.cache \(.*\); each start compiles the server's bundle again \(set XDG_CACHE_HOME to a directory you can write to, or NODE_DISABLE_COMPILE_CACHE=1 to stop trying\)$/,
    );
    await servesAndCloses(server);
  });

  test('NODE_DISABLE_COMPILE_CACHE=1 turns it off: nothing is read or written', async () => {
    const home = makeTempDir('cache');
    const { server, line } = await serve(home, { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(line).toBe('codemode-mcp: compile cache: off (NODE_DISABLE_COMPILE_CACHE=1)');
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
