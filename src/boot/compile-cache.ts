/**
 * V8's code cache for the server's bundle: what V8 compiled of dist/server/main.cjs on an earlier
 * start, read back so the next start skips most of that compile, a third of the server's CPU to its
 * first answer (bench/ANALYSIS.md, "Figures from the code's comments"). Node 20 has no compile
 * cache of its own (`module.enableCompileCache` is Node 22.1+), so the bundle is loaded as a script
 * (load-server.ts) and its cache kept here, in the user's cache directory:
 * `$XDG_CACHE_HOME/codemode-mcp/compile-cache/` when XDG_CACHE_HOME is set; otherwise
 * `~/.cache/codemode-mcp/compile-cache/` on Linux and other Unix, `~/Library/Caches/codemode-mcp/
 * compile-cache/` on macOS, `%LOCALAPPDATA%\codemode-mcp\compile-cache\` on Windows. Its
 * directories are made readable by the user alone: what is in the file runs as the server.
 *
 * One file per Node version and bundle: its name holds Node's version, the architecture and a hash
 * of the bundle's text (V8 itself checks only the text's length), so a rebuilt or upgraded bundle
 * never gets another's code. V8 checks its version and flags and rejects a file that doesn't
 * match; the start then compiles as if there were none, and writes the file anew. Writing replaces
 * the file whole (a temporary file renamed over it) and removes all but the COMPILE_CACHE_FILES_KEPT
 * files used most recently; a start that used its file marks it used (its modification time).
 * `NODE_DISABLE_COMPILE_CACHE=1` (Node's own switch) turns it off.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { userDirectory } from '../support/user-directories.js';

/** What became of the cache at this start; `save` may then write it. */
export type CacheOutcome =
  | 'used' // V8 took the file: nothing to write
  | 'absent' // no file yet
  | 'rejected' // V8 refused the file (another V8 or other flags)
  | 'unreadable' // the file is there but could not be read
  | 'off'; // NODE_DISABLE_COMPILE_CACHE, or a runtime without V8's code cache (Bun)

export interface CompileCache {
  readonly file: string;
  readonly outcome: CacheOutcome;
  /** Writes the cache when this start did not use one; returns a line for the debug log. */
  save(): string;
}

/** The directory the cache files are kept in (see the module's comment). */
export function compileCacheDirectory(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  return join(userDirectory('cache', env, platform), 'compile-cache');
}

/**
 * 4: the cache files kept, those used most recently, whatever their Node: two installs run by one
 * Node (a global one and an npx one), or one install run by two Nodes, each keep theirs rather
 * than each start removing the other's, while a rebuilt or upgraded bundle's old files go.
 */
export const COMPILE_CACHE_FILES_KEPT = 4;

/** The cache file for the bundle whose bytes are `bundle`. */
export function compileCacheFile(directory: string, bundle: Buffer): string {
  const hash = createHash('sha256').update(bundle).digest('hex').slice(0, 16);
  return join(directory, `server-${process.version}-${process.arch}-${hash}.cache`);
}

/** Marks a file this start used as used now, so a start of another build keeps it; '' or why it could not. */
export function markCompileCacheUsed(file: string): string {
  const now = new Date();
  try {
    utimesSync(file, now, now);
    return '';
  } catch (error) {
    return `; could not mark it used (${(error as Error).message})`;
  }
}

/** The cache's bytes for V8, or why there are none. */
export function readCompileCache(file: string): Buffer | 'absent' | 'unreadable' {
  try {
    return readFileSync(file);
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'absent' : 'unreadable';
  }
}

/**
 * Writes `data` (from `script.createCachedData()`) as the cache file, replacing it whole, and
 * removes the files past the COMPILE_CACHE_FILES_KEPT used most recently. Returns a line for the
 * debug log; a failure is that line (the next start compiles again), never an error of the server's.
 */
export function writeCompileCache(file: string, data: Buffer): string {
  const directory = join(file, '..');
  const temporary = `${file}.${process.pid}.tmp`;
  const failed = (error: unknown): string =>
    `could not write ${file} (${(error as Error).message}); each start compiles the server's bundle ` +
    `again (set XDG_CACHE_HOME to a directory you can write to, or NODE_DISABLE_COMPILE_CACHE=1 to stop trying)`;
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
  } catch (error) {
    return failed(error);
  }
  try {
    writeFileSync(temporary, data, { mode: 0o600 });
    renameSync(temporary, file);
  } catch (error) {
    // The directory is there and ours: what was written of the temporary file can be removed.
    rmSync(temporary, { force: true });
    return failed(error);
  }
  const wrote = `wrote ${file} (${data.length} bytes)`;
  try {
    const removed = removeLeastRecentlyUsed(directory, file.slice(directory.length + 1));
    return removed === 0 ? wrote : `${wrote}; removed ${removed} not used lately`;
  } catch (error) {
    return `${wrote}; could not remove the files not used lately (${(error as Error).message})`;
  }
}

/** Removes the cache files past the COMPILE_CACHE_FILES_KEPT used most recently, `written` first among them. */
function removeLeastRecentlyUsed(directory: string, written: string): number {
  const others = readdirSync(directory)
    .filter((entry) => entry.startsWith('server-') && entry.endsWith('.cache') && entry !== written)
    // undefined: removed meanwhile, by another server's start.
    .map((entry) => ({ entry, usedAt: statSync(join(directory, entry), { throwIfNoEntry: false })?.mtimeMs }))
    .filter((file): file is { entry: string; usedAt: number } => file.usedAt !== undefined)
    .sort((a, b) => b.usedAt - a.usedAt);
  const stale = others.slice(COMPILE_CACHE_FILES_KEPT - 1);
  for (const { entry } of stale) rmSync(join(directory, entry), { force: true });
  return stale.length;
}
