/**
 * The type check, as the server sees it: `check(code, catalog, {mode})` → an outcome, off the
 * event loop. The compiler runs in one worker thread (check-worker.ts) with its own heap limit,
 * started at the first check (or `warm`), checks one script at a time in turn, and is terminated
 * and started again when a check runs past the time limit or out of its memory: that script is
 * refused as too costly, and the next script finds a new worker. TypeScript is loaded only there.
 */
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { formatBytes } from '../../common/format-numbers.js';
import { looseTypeOf } from '../catalog/declaration.js';
import type { CatalogTool, JsonSchema } from '../catalog/types.js';
import type { TypeCheckMode } from '../config/settings.js';
import type { Log } from '../support/log.js';
import { PACKAGE_ROOT } from '../support/package-root.js';
import type { CatalogMessage, CheckSource, Language, RawCheck, WorkerReply, WorkerRequest } from './check-messages.js';
import { diagnosticsFor, diagnosticsText, problemsCount, type CheckDiagnostic } from './outcome-text.js';
import { toolTypesOf } from './tool-types.js';

/**
 * What came of a check. `passed`: run it (`note` says why it was not checked, if it wasn't:
 * `// @ts-nocheck`, or a syntax error, which the run reports as it would without the check).
 * `refused`: nothing runs, the model gets `text`. `warned`: run it, and give the model `text`
 * with the answer. `too-slow`: the check ran past its time or memory, nothing runs, the model
 * gets `text`. `unavailable`: the checker could not run (not installed, failed): run it unchecked,
 * and give the model `text`.
 */
export type CheckOutcome =
  | {
      readonly kind: 'passed';
      readonly language?: Language;
      readonly note?: string;
      /** Not checked for these: the run reports its own syntax error, `codemode-mcp check` prints these. */
      readonly syntaxErrors?: readonly CheckDiagnostic[];
    }
  | {
      readonly kind: 'refused' | 'warned';
      readonly language: Language;
      readonly diagnostics: readonly CheckDiagnostic[];
      readonly text: string;
    }
  | { readonly kind: 'too-slow' | 'unavailable'; readonly text: string };

export interface CheckOptions {
  /** `error` refuses a script with errors, `warn` runs it and gives what was found, `off` checks nothing (the typeCheck setting). */
  readonly mode: TypeCheckMode;
  /** Prefixes of the upstreams that have not listed their tools yet (hub.unlistedPrefixes()): their names are callable. */
  readonly unlisted?: readonly string[];
}

/** A skill as saved: its code, its language, the schema of its `input`. */
export interface SkillSource {
  readonly code: string;
  readonly language: Language;
  readonly inputSchema?: JsonSchema;
}

export interface ScriptCheckerOptions {
  /** A check past it is refused as too slow (the typeCheckTimeoutMs setting). */
  readonly timeLimitMs: number;
  readonly log?: Log;
  /** The worker's program; by default the bundle build/bundle-node.js makes. */
  readonly workerFile?: string;
}

/** 256 MiB: the worker's heap; a check that needs more is refused as too costly, and the worker started again. */
export const TYPECHECK_HEAP_MAX_BYTES = 256 * 1024 * 1024;

/**
 * 60 s: how long starting the worker and building a catalog's program may take (not a script's
 * doing, so not its time limit); past it the check is `unavailable` and the script runs unchecked.
 */
export const TYPECHECK_PREPARE_MAX_MS = 60_000;

const WORKER_FILE = join(PACKAGE_ROOT, 'dist', 'server', 'check-worker.cjs');

interface Pending {
  readonly resolve: (reply: WorkerReply) => void;
  readonly reject: (error: Error) => void;
}

/** The worker and what it has been given. */
class CheckWorker {
  readonly worker: Worker;
  readonly prepared = new Set<number>();
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Why it ended, once it has. */
  ended: Error | undefined;

  constructor(file: string) {
    this.worker = new Worker(file, {
      resourceLimits: { maxOldGenerationSizeMb: TYPECHECK_HEAP_MAX_BYTES / 1024 / 1024 },
      stdout: true,
      stderr: true,
    });
    this.worker.unref();
    this.worker.on('message', (reply: WorkerReply) => {
      const pending = this.pending.get(reply.id);
      this.forget(reply.id);
      pending?.resolve(reply);
    });
    const end = (error: Error): void => {
      this.ended ??= error;
      for (const pending of this.pending.values()) pending.reject(this.ended);
      this.pending.clear();
    };
    this.worker.on('error', end);
    this.worker.on('exit', (code) => end(new Error(`the checker's worker exited (code ${code})`)));
  }

  /** Sends a request; its reply, or a rejection when the worker ends first or `limitMs` passes. */
  ask(request: DistributiveOmit<WorkerRequest, 'id'>, limitMs: number): Promise<WorkerReply> {
    if (this.ended !== undefined) return Promise.reject(this.ended);
    const id = this.nextId++;
    return new Promise<WorkerReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.forget(id);
        reject(new TimeLimitError());
      }, limitMs);
      timer.unref();
      this.pending.set(id, {
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      // Held while it answers, so a process waiting on nothing else waits for it.
      this.worker.ref();
      this.worker.postMessage({ ...request, id });
    });
  }

  private forget(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

class TimeLimitError extends Error {}

export class ScriptChecker {
  private worker: CheckWorker | undefined;
  /** Checks run one after another: the worker compiles one script at a time. */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** The catalog a warm asked for, until the warm's turn comes. */
  private warming: (() => readonly CatalogTool[]) | undefined;
  private readonly workerFile: string;

  constructor(private readonly options: ScriptCheckerOptions) {
    this.workerFile = options.workerFile ?? WORKER_FILE;
  }

  /** Checks a script against the catalog it will see. */
  check(code: string, catalog: readonly CatalogTool[], options: CheckOptions): Promise<CheckOutcome> {
    return this.checkSource({ code }, catalog, options);
  }

  /** Checks a skill's code, `input` typed from its input schema, against the catalog it will see. */
  checkSkill(skill: SkillSource, catalog: readonly CatalogTool[], options: CheckOptions): Promise<CheckOutcome> {
    const inputType = skill.inputSchema === undefined ? 'any' : looseTypeOf(skill.inputSchema);
    return this.checkSource({ code: skill.code, language: skill.language, inputType }, catalog, options);
  }

  /**
   * Starts the compiler and builds the catalog's program ahead of the first check, in the
   * background. `catalog` is read when its turn comes: warms asked for meanwhile are one.
   */
  warm(catalog: () => readonly CatalogTool[]): void {
    const pending = this.warming === undefined;
    this.warming = catalog;
    if (!pending) return;
    void this.enqueue(async () => {
      const latest = this.warming;
      this.warming = undefined;
      if (latest === undefined || this.closed) return;
      try {
        await this.prepared(latest());
      } catch (error) {
        this.options.log?.(`codemode-mcp: the type check could not start: ${(error as Error).message}`, 'warn');
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    if (worker !== undefined) await worker.terminate();
  }

  private checkSource(source: CheckSource, catalog: readonly CatalogTool[], options: CheckOptions): Promise<CheckOutcome> {
    if (options.mode === 'off') return Promise.resolve({ kind: 'passed', note: 'typeCheck is off' });
    return this.enqueue(() => this.run(source, catalog, options));
  }

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const result = this.queue.then(job);
    // Each job's own promise carries its failure to its caller; the queue only goes on.
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async run(source: CheckSource, catalog: readonly CatalogTool[], options: CheckOptions): Promise<CheckOutcome> {
    let worker: CheckWorker;
    let key: number;
    try {
      ({ worker, key } = await this.prepared(catalog));
    } catch (error) {
      return { kind: 'unavailable', text: `Not type-checked: the checker could not start (${(error as Error).message}).` };
    }
    let reply: WorkerReply;
    try {
      reply = await worker.ask({ type: 'check', key, source, unlisted: options.unlisted ?? [] }, this.options.timeLimitMs);
    } catch (error) {
      return this.overrun(worker, error as Error);
    }
    if ('error' in reply) {
      this.options.log?.(`codemode-mcp: the type check failed on a script, which runs unchecked: ${reply.error}`, 'warn');
      return { kind: 'unavailable', text: `Not type-checked: the checker failed (${firstLine(reply.error)}).` };
    }
    if (!('result' in reply)) return { kind: 'unavailable', text: 'Not type-checked: the checker answered out of turn.' };
    if (reply.grown === true) void this.enqueue(() => this.recycle(worker));
    return outcomeOf(reply.result, catalog, options.mode);
  }

  /** The worker, with the catalog's program built; started (again) if there is none. */
  private async prepared(catalog: readonly CatalogTool[]): Promise<{ worker: CheckWorker; key: number }> {
    if (this.closed) throw new Error('the checker is closed');
    const types = toolTypesOf(catalog);
    if (this.worker === undefined || this.worker.ended !== undefined) this.worker = new CheckWorker(this.workerFile);
    const worker = this.worker;
    if (!worker.prepared.has(types.key)) {
      const message: CatalogMessage = {
        key: types.key,
        text: types.text,
        names: types.names,
        denied: types.denied,
        aliases: types.aliases,
      };
      let reply: WorkerReply;
      try {
        reply = await worker.ask({ type: 'prepare', catalog: message }, TYPECHECK_PREPARE_MAX_MS);
      } catch (error) {
        await this.discard(worker);
        throw error instanceof TimeLimitError ? new Error(`it took longer than ${TYPECHECK_PREPARE_MAX_MS / 1000} s`) : error;
      }
      if ('error' in reply) {
        await this.discard(worker);
        throw new Error(firstLine(reply.error));
      }
      worker.prepared.add(types.key);
    }
    return { worker, key: types.key };
  }

  /** A check that ran past its time or memory: the worker is ended, and the next check starts another. */
  private async overrun(worker: CheckWorker, error: Error): Promise<CheckOutcome> {
    await this.discard(worker);
    const limit = this.options.timeLimitMs;
    if (error instanceof TimeLimitError || isOutOfMemory(error)) {
      const what =
        error instanceof TimeLimitError
          ? `took longer than ${limit >= 1000 ? `${limit / 1000} s` : `${limit} ms`} (typeCheckTimeoutMs)`
          : `needed more than its ${formatBytes(TYPECHECK_HEAP_MAX_BYTES)} of memory`;
      return {
        kind: 'too-slow',
        text:
          `Refused: the type check ${what}; nothing ran. Make the script smaller or its types simpler ` +
          '(`// @ts-nocheck` on its first line skips the check).',
      };
    }
    this.options.log?.(`codemode-mcp: the type check's worker ended during a check: ${error.message}`, 'warn');
    return { kind: 'unavailable', text: `Not type-checked: the checker ended (${firstLine(error.message)}).` };
  }

  private async recycle(worker: CheckWorker): Promise<void> {
    if (worker !== this.worker) return;
    try {
      await worker.ask({ type: 'recycle' }, TYPECHECK_PREPARE_MAX_MS);
    } catch {
      await this.discard(worker);
    }
  }

  private async discard(worker: CheckWorker): Promise<void> {
    if (this.worker === worker) this.worker = undefined;
    await worker.terminate();
  }
}

function outcomeOf(result: RawCheck, catalog: readonly CatalogTool[], mode: TypeCheckMode): CheckOutcome {
  const { language } = result;
  if (result.skipped === 'nocheck') return { kind: 'passed', language, note: '// @ts-nocheck: not type-checked' };
  // Its run says where a syntax error is, as it does without the check.
  if (result.syntax.length > 0) {
    return {
      kind: 'passed',
      language,
      note: 'a syntax error: not type-checked',
      syntaxErrors: diagnosticsFor(result.syntax, catalog),
    };
  }
  if (result.diagnostics.length === 0) return { kind: 'passed', language };
  const diagnostics = diagnosticsFor(result.diagnostics, catalog);
  const count = problemsCount(diagnostics.length);
  if (mode === 'warn') {
    const headline = `The type check found ${count} (typeCheck is "warn", so the script ran):`;
    return { kind: 'warned', language, diagnostics, text: diagnosticsText(headline, diagnostics, catalog) };
  }
  const headline = `Refused by the type check; nothing ran. ${count} in the script:`;
  return { kind: 'refused', language, diagnostics, text: diagnosticsText(headline, diagnostics, catalog) };
}

/** The text of an outcome that refuses what was checked (`refused`, `too-slow`), else undefined. */
export function refusalOf(outcome: CheckOutcome): string | undefined {
  return outcome.kind === 'refused' || outcome.kind === 'too-slow' ? outcome.text : undefined;
}

function isOutOfMemory(error: Error): boolean {
  return (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? text;
}
