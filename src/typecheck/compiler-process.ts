/**
 * TypeScript's native compiler (TypeScript 7, the npm package `typescript` at 7.x, installed as
 * `typescript-native`) as a child process of the server: started with its API on a socket in a
 * private directory, talked to through the package's JavaScript API over that socket, its Go
 * runtime given the memory bound as its target, and its memory watched from here during a check.
 * The checker (script-checker.ts) kills it on an overrun and starts another for the next check.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { API } from 'typescript-native/unstable/async';
import { PACKAGE_ROOT } from '../support/package-root.js';
import { pause, settleWithin } from '../support/settle.js';
import { COMPILER_DIRECTORY_PREFIX, COMPILER_SOCKET_FILE, removeStaleDirectories } from './stale-directories.js';

/** 5 ms: how often the compiler's socket is looked for while it starts. */
const SOCKET_POLL_MS = 5;

/** 1 s: at shutdown, how long the compiler has for each step (its connection closed, SIGTERM) before the next. */
const COMPILER_CLOSE_GRACE_MS = 1_000;

/** The package's JavaScript API and its AST module (native-modules.ts), loaded at the first start. */
export type NativeModules = typeof import('./native-modules.js');

/** The compiler's executable, in the platform package `typescript-native` depends on; throws when it isn't installed. */
function executablePath(): string {
  const fromHere = createRequire(import.meta.url);
  const fromPackage = createRequire(fromHere.resolve('typescript-native/package.json'));
  const platform = fromPackage.resolve(`@typescript/typescript-${process.platform}-${process.arch}/package.json`);
  return join(dirname(platform), 'lib', process.platform === 'win32' ? 'tsc.exe' : 'tsc');
}

/** The modules as bundled for the server (native-modules.ts), required by path. */
const MODULES_FILE = join(PACKAGE_ROOT, 'dist', 'server', 'typescript-native.cjs');

let loaded: NativeModules | undefined;

function loadModules(): NativeModules {
  loaded ??= createRequire(import.meta.url)(MODULES_FILE) as NativeModules;
  return loaded;
}

export interface CompilerStart {
  /** The Go runtime's memory target (GOMEMLIMIT); the checker's watch enforces it as a bound. */
  readonly memoryMaxBytes: number;
  /** Past it, the start has failed. */
  readonly timeLimitMs: number;
  /** Aborted (the checker closed), the start is given up at once, the process killed. */
  readonly signal?: AbortSignal;
  /** The compiler's executable; by default the platform package's (executablePath). */
  readonly executable?: string;
}

export class CompilerProcess {
  /** Why it ended, once it has (an exit, a kill, a failure to start). */
  ended: Error | undefined;

  private constructor(
    readonly api: API,
    readonly modules: NativeModules,
    /** The private directory its files (the catalogs' projects, the script) and its socket are in. */
    readonly directory: string,
    private readonly child: ChildProcess,
    readonly exited: Promise<void>,
  ) {}

  /** Starts a compiler and connects to it; rejects (with nothing left running) when it can't. */
  static async start(options: CompilerStart): Promise<CompilerProcess> {
    const modules = loadModules();
    const executable = options.executable ?? executablePath();
    removeStaleDirectories(tmpdir());
    const directory = mkdtempSync(join(tmpdir(), COMPILER_DIRECTORY_PREFIX));
    const socket =
      process.platform === 'win32'
        ? `\\\\.\\pipe\\${directory.replace(/[^A-Za-z0-9]/g, '-')}`
        : join(directory, COMPILER_SOCKET_FILE);
    const child = spawn(executable, ['--api', '--async', '--pipe', socket, '--cwd', directory], {
      // What the compiler needs of an environment: nothing but its memory target.
      env: {
        GOMEMLIMIT: String(options.memoryMaxBytes),
        ...(process.platform === 'win32' ? { SystemRoot: process.env.SystemRoot ?? '' } : {}),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-2_000);
    });
    let failed: Error | undefined;
    const exited = new Promise<void>((resolve) => {
      child.once('error', (error) => {
        failed ??= error;
        resolve();
      });
      child.once('exit', (code, signal) => {
        failed ??= new Error(
          `the compiler exited (${signal ?? `code ${code}`})${stderr.trim() === '' ? '' : `: ${stderr.trim()}`}`,
        );
        resolve();
      });
    });
    const end = async (error: Error): Promise<never> => {
      child.kill('SIGKILL');
      await exited;
      rmSync(directory, { recursive: true, force: true });
      throw error;
    };
    const listening = await settleWithin(
      waitForSocket(socket, () => failed),
      { ms: options.timeLimitMs, ref: true, ...(options.signal !== undefined ? { signal: options.signal } : {}) },
    );
    if (listening === 'aborted') return end(new Error('the checker closed while its compiler started'));
    if (listening !== 'settled') return end(new Error(`it did not start within ${options.timeLimitMs / 1000} s`));
    if (failed !== undefined) return end(failed);
    const compiler = new CompilerProcess(new modules.api.API({ pipe: socket }), modules, directory, child, exited);
    void exited.then(() => {
      compiler.ended ??= failed;
    });
    return compiler;
  }

  /** Its resident memory now, where the system says (Linux's /proc); undefined elsewhere. */
  async residentBytes(): Promise<number | undefined> {
    if (process.platform !== 'linux' || this.child.pid === undefined) return undefined;
    try {
      const pages = Number((await readFile(`/proc/${this.child.pid}/statm`, 'utf8')).split(' ')[1]);
      return Number.isFinite(pages) ? pages * 4096 : undefined;
    } catch {
      // Gone since: its exit says why.
      return undefined;
    }
  }

  /** Ends it at once (an overrun, a failure), and removes its directory. */
  async kill(why: Error): Promise<void> {
    this.ended ??= why;
    this.child.kill('SIGKILL');
    await this.exited;
    rmSync(this.directory, { recursive: true, force: true });
  }

  /** Ends it at shutdown: its connection closed, then SIGTERM, then SIGKILL past the grace. */
  async close(): Promise<void> {
    this.ended ??= new Error('the checker closed');
    await settleWithin(this.api.close(), { ms: COMPILER_CLOSE_GRACE_MS });
    this.child.kill('SIGTERM');
    if ((await settleWithin(this.exited, { ms: COMPILER_CLOSE_GRACE_MS })) !== 'settled') this.child.kill('SIGKILL');
    await this.exited;
    rmSync(this.directory, { recursive: true, force: true });
  }
}

/** Resolves once the compiler's socket is there, or once `failed` says it never will be. */
async function waitForSocket(socket: string, failed: () => Error | undefined): Promise<void> {
  while (failed() === undefined && !existsSync(socket)) {
    await pause(SOCKET_POLL_MS);
  }
}
