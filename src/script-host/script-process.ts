/**
 * Spawning a script's child process, in a private directory with an empty environment: the one
 * place that does it, for ScriptChild (script-child.ts) and for the early start over stdio
 * (src/commands/serve-stdio/early-start.ts), which spawns the pool's children before the SDK has loaded and
 * hands them to the pool to adopt. Light on purpose: no module here loads the SDK.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { CHILD_DIR_PREFIX, type ChildOptions } from '../../protocol/contract.js';
import type { Settings } from '../config/settings.js';
import { holdUnread } from '../support/unread-output.js';
import { ENGINE_MAIN } from './engine-path.js';
import { removeStaleChildDirs } from './stale-child-dirs.js';
import { stackBudget } from './stack-budget.js';

/** This machine's stack budget for a script, read once: every child gets the same. */
const STACK_BUDGET = stackBudget();

export interface SpawnChildOptions extends Omit<ChildOptions, 'warm' | 'quickjsStackBytes'> {
  /** Warm the engine before saying ready: for a pooled child, which has time to spare. */
  readonly warm?: boolean;
  /** The program the child runs; the engine unless a test gives a misbehaving one. */
  readonly entry?: string;
}

export interface ScriptProcess {
  readonly process: ChildProcess;
  /** Its private directory, its working directory; removed when it has exited. */
  readonly dir: string;
  /** The spawn's error, once it came: a process that could not start emits it before anyone adopts it. */
  readonly failure: () => Error | undefined;
}

/** What the server's script children are spawned with, from its settings: the pool's and an early start's alike. */
export function scriptProcessOptions(settings: Settings, warm: boolean): SpawnChildOptions {
  return { memoryMaxBytes: settings.memoryMaxBytes, notifyMax: settings.notifyMax, showMaxBytes: settings.showMaxBytes, warm };
}

/** Whether this process has removed the directories killed servers' children left (stale-child-dirs.ts). */
let swept = false;

export function spawnScriptProcess(options: SpawnChildOptions): ScriptProcess {
  if (!swept) {
    swept = true;
    removeStaleChildDirs(tmpdir());
  }
  const dir = mkdtempSync(join(tmpdir(), CHILD_DIR_PREFIX));
  const budget = STACK_BUDGET;
  const childOptions: ChildOptions = {
    memoryMaxBytes: options.memoryMaxBytes,
    notifyMax: options.notifyMax,
    showMaxBytes: options.showMaxBytes,
    quickjsStackBytes: budget.quickjsStackBytes,
    warm: options.warm ?? false,
  };
  // --expose-gc: a pooled child collects what its warm-up left before it sits idle (engine/collect-garbage.ts).
  const v8Flags = [...(budget.v8StackKiB === undefined ? [] : [`--stack-size=${budget.v8StackKiB}`]), '--expose-gc'];
  const child = spawn(process.execPath, [...v8Flags, options.entry ?? ENGINE_MAIN, JSON.stringify(childOptions)], {
    cwd: dir,
    env: {},
    stdio: ['pipe', 'ignore', 'pipe', 'pipe'],
  });
  let failure: Error | undefined;
  child.once('error', (error) => (failure = error));
  return { process: child, dir, failure: () => failure };
}

/** Pooled children spawned early (src/commands/serve-stdio/early-start.ts), with the options they were spawned with. */
const early: Array<{ readonly options: SpawnChildOptions; readonly spawned: ScriptProcess; readonly release: () => void }> = [];

/** Holds an early-spawned pooled child for the pool to adopt. */
export function offerEarlyScriptProcess(options: SpawnChildOptions, spawned: ScriptProcess): void {
  const { stdio } = spawned.process;
  early.push({ options, spawned, release: holdUnread([stdio[2], stdio[3] as Readable | null]) });
}

/** A process spawned early with these options, taken; none when there is none left. */
export function claimEarlyScriptProcess(options: SpawnChildOptions): ScriptProcess | undefined {
  const index = early.findIndex((held) => JSON.stringify(held.options) === JSON.stringify(options));
  if (index === -1) return undefined;
  const [held] = early.splice(index, 1);
  held!.release();
  return held!.spawned;
}

/** Kills the early-spawned children no pool adopted (the server is shutting down before it started one). */
export function discardEarlyScriptProcesses(): void {
  for (const { spawned } of early.splice(0)) {
    spawned.process.once('close', () => rmSync(spawned.dir, { recursive: true, force: true }));
    spawned.process.kill('SIGKILL');
  }
}
