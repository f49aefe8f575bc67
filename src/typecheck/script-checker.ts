/**
 * The type check, as the server sees it: `check(code, catalog, {mode})` → an outcome, off the
 * event loop, within the time limit. The compiler is TypeScript's native one in a child process
 * (compiler-process.ts), started at the first check (or `warm`); it checks one script at a time
 * in turn. A check's wait (its turn, a compiler starting) counts against its time limit from the
 * call: a limit passed waiting is `too-slow`, and the script runs unchecked (no fault of its own).
 * The script's own check then has the whole limit (so a caller waits at most twice it): a check
 * that runs past it, or past the compiler's memory, is `too-costly`, and the script is refused
 * (its types cost that much; `warn` runs it unchecked); the compiler is killed, and the next check
 * starts another. What a check found is kept by the catalog and the code, so the same script
 * against the same catalog is not checked twice.
 */
import { createHash } from 'node:crypto';
import { formatBytes } from '../../common/format-numbers.js';
import { looseTypeOf } from '../catalog/declaration.js';
import type { CatalogTool, JsonSchema } from '../catalog/types.js';
import type { TypeCheckMode } from '../config/settings.js';
import { Logger, type Log } from '../support/log.js';
import { pause, settleWithin } from '../support/settle.js';
import { CheckCompiler } from './check-program.js';
import { CompilerProcess } from './compiler-process.js';
import { diagnosticsFor, diagnosticsText, problemsCount, type CheckDiagnostic, type Subject } from './outcome-text.js';
import type { CheckSource, Language, RawCheck } from './raw-check.js';
import { toolTypesOf } from './tool-types.js';

/**
 * What came of a check. `passed`: run it (`note` says why it was not checked, if it wasn't:
 * `// @ts-nocheck`, or a syntax error, which the run reports as it would without the check).
 * `refused`: nothing runs, the model gets `text`. `warned`: run it, and give the model `text`
 * with the answer. `too-slow`: the time limit passed before the script's own check began (its
 * turn, a compiler starting), or its own check ran over in `warn`: run it unchecked, and give the
 * model `text` (`reason` says why, for `codemode-mcp check`). `too-costly`: the script's own check
 * ran past the time limit or the compiler's memory: nothing runs, the model gets `text`.
 * `unavailable`: the checker could not run (not installed, failed): run it unchecked, and give the
 * model `text`.
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
  | { readonly kind: 'too-slow' | 'too-costly'; readonly reason: string; readonly text: string }
  | { readonly kind: 'unavailable'; readonly text: string };

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
  /** How long a check may wait from its call, and then how long its own check may take (the typeCheckTimeoutMs setting). */
  readonly timeLimitMs: number;
  readonly log?: Log;
  /** The compiler's executable; by default the one `typescript-native` installed for this platform. */
  readonly executable?: string;
}

/**
 * 256 MiB: the compiler's memory (its Go runtime's target, and a bound watched during each check
 * where the system shows a process's memory); past it the check is given up (the script runs
 * unchecked), and the compiler started again.
 */
export const TYPECHECK_MEMORY_MAX_BYTES = 256 * 1024 * 1024;

/** 25 ms: how often the compiler's memory is looked at during a check. */
const MEMORY_POLL_MS = 25;

/**
 * 60 s: how long starting the compiler and opening a catalog's project may take; past it the
 * compiler is given up, and the next check starts another. A check waits for it only within its
 * own time limit (a run is not held up for it), `ready` as long as it takes.
 */
export const TYPECHECK_PREPARE_MAX_MS = 60_000;

/** 256: checks whose findings are kept by catalog and code; the oldest is forgotten first. */
export const TYPECHECK_FINDINGS_KEPT = 256;

/** A compiler and its programs. */
interface Compiler {
  readonly process: CompilerProcess;
  readonly programs: CheckCompiler;
  readonly prepared: Set<number>;
}

/** Why a check was cut short: its time, or its memory. */
class OverrunError extends Error {
  constructor(readonly what: 'time' | 'memory') {
    super(`the check ran past its ${what}`);
  }
}

/** How a check bounded in time and memory ended. */
type Bounded = { readonly raw: RawCheck } | { readonly error: Error } | { readonly overrun: OverrunError };

/** Aborted once a check's caller was answered `too-slow`: a check not yet begun is not begun. */
type GivenUp = AbortSignal;

export class ScriptChecker {
  private compiler: Compiler | undefined;
  /** Checks run one after another: the compiler checks one script at a time. */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** Aborted at close: a compiler still starting is given up. */
  private readonly closing = new AbortController();
  /** The catalog a warm asked for, until the warm's turn comes. */
  private warming: (() => readonly CatalogTool[]) | undefined;
  /** What checks found, by catalog and source (findingKey), oldest first. */
  private readonly findings = new Map<string, RawCheck>();

  /** Where the checker's own troubles are said, when its options give a log. */
  private readonly said: Logger | undefined;

  constructor(private readonly options: ScriptCheckerOptions) {
    this.said = options.log === undefined ? undefined : Logger.of(options.log);
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
   * Starts the compiler and opens the catalog's project, waiting as long as that takes (within
   * TYPECHECK_PREPARE_MAX_MS), so that a check after it has its whole time limit for the script:
   * for `codemode-mcp check`, where nothing is to run meanwhile. Rejects when the compiler can't start.
   */
  async ready(catalog: readonly CatalogTool[]): Promise<void> {
    await this.enqueue(() => this.prepared(catalog));
  }

  /**
   * Starts the compiler and opens the catalog's project ahead of the first check, in the
   * background. `catalog` is read when its turn comes: warms asked for meanwhile are one.
   */
  warm(catalog: () => readonly CatalogTool[]): void {
    const pending = this.warming !== undefined;
    this.warming = catalog;
    if (pending) return;
    void this.enqueue(async () => {
      const latest = this.warming;
      this.warming = undefined;
      if (latest === undefined || this.closed) return;
      try {
        await this.prepared(latest());
      } catch (error) {
        this.said?.warn(`the type check could not start: ${(error as Error).message}`);
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    const compiler = this.compiler;
    this.compiler = undefined;
    if (compiler !== undefined) await compiler.process.close();
    // The jobs still queued end at once now (a compiler starting is killed): none leaves a process behind.
    await this.queue;
  }

  /**
   * The check's outcome: `too-slow` when its time limit passes while it waits (its turn, a
   * compiler starting); once the script's own check has begun, what that check comes to within
   * its own limit.
   */
  private async checkSource(source: CheckSource, catalog: readonly CatalogTool[], options: CheckOptions): Promise<CheckOutcome> {
    if (options.mode === 'off') return { kind: 'passed', note: 'typeCheck is off' };
    const { timeLimitMs } = this.options;
    const given = new AbortController();
    let begun = false;
    const job = this.enqueue(() => this.run(source, catalog, options, given.signal, () => (begun = true)));
    if ((await settleWithin(job, { ms: timeLimitMs, ref: true })) === 'settled' || begun) return job;
    given.abort();
    return this.tooSlow(subjectOf(source));
  }

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const result = this.queue.then(job);
    // Each job's own promise carries its failure to its caller; the queue only goes on.
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async run(
    source: CheckSource,
    catalog: readonly CatalogTool[],
    options: CheckOptions,
    givenUp: GivenUp,
    begins: () => void,
  ): Promise<CheckOutcome> {
    const unlisted = options.unlisted ?? [];
    const key = findingKey(toolTypesOf(catalog).key, source, unlisted);
    const found = this.findings.get(key);
    if (found !== undefined) return outcomeOf(found, catalog, options.mode, subjectOf(source));
    let compiler: Compiler;
    try {
      compiler = await this.prepared(catalog);
    } catch (error) {
      return {
        kind: 'unavailable',
        text: `Not type-checked: the checker could not start (${firstLine((error as Error).message)}).`,
      };
    }
    // Its caller was answered while it waited (its turn, the compiler's start): the script ran unchecked.
    if (givenUp.aborted) return this.tooSlow(subjectOf(source));
    // The script's own check has the whole time limit, its caller waiting for it: a compiler is
    // killed, and a script refused, for a costly check, never for the wait before it.
    begins();
    const checked = await this.bounded(compiler, compiler.programs.check(toolTypesOf(catalog).key, source, unlisted));
    if ('overrun' in checked) {
      await this.discard(compiler, checked.overrun);
      return this.tooCostly(checked.overrun.what, subjectOf(source), options.mode);
    }
    if ('error' in checked) {
      const { ended } = compiler.process;
      if (ended !== undefined) {
        await this.discard(compiler, ended);
        this.said?.warn(`the type check's compiler ended during a check: ${ended.message}`);
        return { kind: 'unavailable', text: `Not type-checked: the checker ended (${firstLine(ended.message)}).` };
      }
      this.said?.warn(`the type check failed on a script, which runs unchecked: ${checked.error.stack ?? checked.error.message}`);
      return { kind: 'unavailable', text: `Not type-checked: the checker failed (${firstLine(checked.error.message)}).` };
    }
    this.remember(key, checked.raw);
    return outcomeOf(checked.raw, catalog, options.mode, subjectOf(source));
  }

  /** `check` within the time limit and the memory bound; past either, which. */
  private async bounded(compiler: Compiler, check: Promise<RawCheck>): Promise<Bounded> {
    const settled = check.then(
      (raw): Bounded => ({ raw }),
      (error: unknown): Bounded => ({ error: error instanceof Error ? error : new Error(String(error)) }),
    );
    const watching = new AbortController();
    const overMemory = this.watchMemory(compiler.process, watching.signal);
    const timed = settleWithin(settled, { ms: this.options.timeLimitMs }).then((how): Promise<Bounded> | Bounded =>
      how === 'settled' ? settled : { overrun: new OverrunError('time') },
    );
    const first = await Promise.race([timed, overMemory]);
    watching.abort();
    return first;
  }

  /** Resolves when the compiler's memory is past its bound; stays pending once `stop` aborts. */
  private async watchMemory(process: CompilerProcess, stop: AbortSignal): Promise<{ readonly overrun: OverrunError }> {
    while (!stop.aborted) {
      const bytes = await process.residentBytes();
      if (bytes !== undefined && bytes > TYPECHECK_MEMORY_MAX_BYTES) return { overrun: new OverrunError('memory') };
      await pause(MEMORY_POLL_MS, stop);
    }
    return new Promise<never>(() => {});
  }

  /** The compiler, with the catalog's project open; started (again) if there is none. */
  private async prepared(catalog: readonly CatalogTool[]): Promise<Compiler> {
    if (this.closed) throw new Error('the checker is closed');
    const types = toolTypesOf(catalog);
    if (this.compiler === undefined || this.compiler.process.ended !== undefined) {
      const process = await CompilerProcess.start({
        memoryMaxBytes: TYPECHECK_MEMORY_MAX_BYTES,
        timeLimitMs: TYPECHECK_PREPARE_MAX_MS,
        signal: this.closing.signal,
        ...(this.options.executable !== undefined ? { executable: this.options.executable } : {}),
      });
      // Closed while it started: it has no one to check for.
      if (this.closed) {
        await process.close();
        throw new Error('the checker is closed');
      }
      this.compiler = { process, programs: new CheckCompiler(process), prepared: new Set() };
    }
    const compiler = this.compiler;
    if (!compiler.prepared.has(types.key)) {
      const opening = compiler.programs.prepare(types);
      if ((await settleWithin(opening, { ms: TYPECHECK_PREPARE_MAX_MS })) !== 'settled') {
        const late = new Error(`it took longer than ${TYPECHECK_PREPARE_MAX_MS / 1000} s`);
        await this.discard(compiler, late);
        throw late;
      }
      try {
        await opening;
      } catch (error) {
        await this.discard(compiler, error as Error);
        throw error;
      }
      compiler.prepared.add(types.key);
    }
    return compiler;
  }

  /** A check whose time limit passed before the script's own check began: what runs is unchecked, and says so. */
  private tooSlow(subject: Subject): CheckOutcome {
    const reason = `the check could not begin within ${this.limitText()} (typeCheckTimeoutMs; the checker was busy or starting)`;
    return { kind: 'too-slow', reason, text: `Not type-checked: ${reason}, so the ${subject} ran unchecked.` };
  }

  /**
   * The script's own check ran past its time or the compiler's memory: its types cost that much,
   * so it is refused (in `warn`, it runs unchecked), and told how to get past it.
   */
  private tooCostly(what: OverrunError['what'], subject: Subject, mode: TypeCheckMode): CheckOutcome {
    const reason =
      what === 'time'
        ? `the check of its types took longer than ${this.limitText()} (typeCheckTimeoutMs)`
        : `the check of its types needed more than the compiler's ${formatBytes(TYPECHECK_MEMORY_MAX_BYTES)} of memory`;
    const way = 'a type that expands to a huge union, deep recursion in a type, or a very long file';
    if (mode === 'warn') {
      return {
        kind: 'too-slow',
        reason,
        text: `Not type-checked: ${reason}, so the ${subject} ran unchecked (typeCheck is "warn"); ${way} costs this much.`,
      };
    }
    return {
      kind: 'too-costly',
      reason,
      text:
        `${subject === 'script' ? 'Refused by the type check; nothing ran' : 'Refused by the type check'}: ${reason}. ` +
        `Simplify its types (${way} costs this much), ` +
        `or put \`// @ts-nocheck\` on the ${subject}'s first line to run it unchecked.`,
    };
  }

  private limitText(): string {
    const limit = this.options.timeLimitMs;
    return limit >= 1000 ? `${limit / 1000} s` : `${limit} ms`;
  }

  private async discard(compiler: Compiler, why: Error): Promise<void> {
    if (this.compiler === compiler) this.compiler = undefined;
    await compiler.process.kill(why);
  }

  /** Keeps what a check found, forgetting the oldest past TYPECHECK_FINDINGS_KEPT. */
  private remember(key: string, raw: RawCheck): void {
    this.findings.set(key, raw);
    for (const old of this.findings.keys()) {
      if (this.findings.size <= TYPECHECK_FINDINGS_KEPT) break;
      this.findings.delete(old);
    }
  }
}

/** What a check's findings depend on: the catalog, the code as checked, and the upstreams not yet listed. */
function findingKey(catalog: number, source: CheckSource, unlisted: readonly string[]): string {
  const digest = createHash('sha256').update(
    JSON.stringify([source.code, source.language ?? null, source.inputType ?? null, unlisted]),
  );
  return `${catalog}:${digest.digest('base64')}`;
}

/** A skill's source has its `input` typed; a script's has none. */
function subjectOf(source: CheckSource): Subject {
  return source.inputType === undefined ? 'script' : 'skill';
}

function outcomeOf(result: RawCheck, catalog: readonly CatalogTool[], mode: TypeCheckMode, subject: Subject): CheckOutcome {
  const { language } = result;
  if (result.skipped === 'nocheck') return { kind: 'passed', language, note: '// @ts-nocheck: not type-checked' };
  // Its run says where a syntax error is, as it does without the check.
  if (result.syntax.length > 0) {
    return {
      kind: 'passed',
      language,
      note: 'a syntax error: not type-checked',
      syntaxErrors: diagnosticsFor(result.syntax, catalog, subject),
    };
  }
  if (result.diagnostics.length === 0) return { kind: 'passed', language };
  const diagnostics = diagnosticsFor(result.diagnostics, catalog, subject);
  const count = problemsCount(diagnostics.length);
  if (mode === 'warn') {
    const headline = `The type check found ${count} (typeCheck is "warn", so the ${subject} ran):`;
    return { kind: 'warned', language, diagnostics, text: diagnosticsText(headline, diagnostics, catalog) };
  }
  // A skill is refused at its save or its call, which say what became of it.
  const headline =
    subject === 'script'
      ? `Refused by the type check; nothing ran. ${count} in the script:`
      : `Refused by the type check. ${count} in the skill:`;
  return { kind: 'refused', language, diagnostics, text: diagnosticsText(headline, diagnostics, catalog) };
}

/** The text of an outcome that refuses what was checked (`refused`, `too-costly`), else undefined: a check that could not decide refuses nothing. */
export function refusalOf(outcome: CheckOutcome): string | undefined {
  return outcome.kind === 'refused' || outcome.kind === 'too-costly' ? outcome.text : undefined;
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? text;
}
