/**
 * Loads the server's bundle (dist/server/main.cjs, beside this file's bundle dist/server/boot.js)
 * with V8's code cache (compile-cache.ts). The bundle is one CommonJS file, run here as a script in
 * Node's wrapper, because a script is what `vm.Script` can cache on Node 20; an ES module's
 * compile can't be cached there. Under Bun, or with NODE_DISABLE_COMPILE_CACHE=1, it is required
 * as any CommonJS file is.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants as vmConstants, Script } from 'node:vm';
import type * as Server from '../main.js';
import {
  compileCacheDirectory,
  compileCacheFile,
  markCompileCacheUsed,
  readCompileCache,
  writeCompileCache,
  type CacheOutcome,
  type CompileCache,
} from './compile-cache.js';

export type { CompileCache } from './compile-cache.js';
export type ServerEntry = typeof Server;

const BUNDLE = fileURLToPath(new URL('main.cjs', import.meta.url));

/** What the executable reports as a missing build. */
function missingBundle(): Error {
  return Object.assign(new Error(`Cannot find the server's bundle ${BUNDLE}`), { code: 'ERR_MODULE_NOT_FOUND' });
}

/** The bundle's bytes: ASCII alone (build/bundle-node.js), so Latin-1 is their text. */
function readBundle(): Buffer {
  try {
    return readFileSync(BUNDLE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw missingBundle();
    throw error;
  }
}

/** Why the cache is off in this process, or undefined when it is on. */
function cacheOffBecause(): string | undefined {
  if (process.env.NODE_DISABLE_COMPILE_CACHE === '1') return 'NODE_DISABLE_COMPILE_CACHE=1';
  if (process.versions.bun !== undefined) return 'Bun has no V8 code cache';
  return undefined;
}

const WHY_WRITTEN: Record<Exclude<CacheOutcome, 'used' | 'off'>, string> = {
  absent: 'none yet',
  rejected: 'V8 rejected the file (another Node build or other V8 flags)',
  unreadable: 'the file could not be read',
};

export function loadServer(): { entry: ServerEntry; compileCache: CompileCache } {
  const offBecause = cacheOffBecause();
  if (offBecause !== undefined) {
    if (!existsSync(BUNDLE)) throw missingBundle();
    const entry = createRequire(import.meta.url)(BUNDLE) as ServerEntry;
    return { entry, compileCache: { file: '', outcome: 'off', save: () => `compile cache: off (${offBecause})` } };
  }
  const bytes = readBundle();
  const source = bytes.toString('latin1');
  const file = compileCacheFile(compileCacheDirectory(), bytes);
  const read = readCompileCache(file);
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: BUNDLE,
    cachedData: typeof read === 'string' ? undefined : read,
    // Node 20.12+: the bundle's one import() of a built-in (an older Node's crypto) resolves as Node's own would.
    ...(vmConstants?.USE_MAIN_CONTEXT_DEFAULT_LOADER === undefined
      ? {}
      : { importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER }),
  });
  const outcome: CacheOutcome = typeof read === 'string' ? read : script.cachedDataRejected === true ? 'rejected' : 'used';
  const module = { exports: {} as ServerEntry };
  (script.runInThisContext() as (...args: unknown[]) => void)(
    module.exports,
    createRequire(BUNDLE),
    module,
    BUNDLE,
    dirname(BUNDLE),
  );
  let saved: string | undefined;
  const save = (): string => {
    saved ??=
      outcome === 'used'
        ? `compile cache: used ${file}${markCompileCacheUsed(file)}`
        : `compile cache: ${WHY_WRITTEN[outcome]}; ${writeCompileCache(file, script.createCachedData())}`;
    return saved;
  };
  return { entry: module.exports, compileCache: { file, outcome, save } };
}
