/**
 * The checker's compiler, in its worker: a TypeScript program per catalog (the standard library,
 * the guest globals, the catalog's tools), and its type checker kept warm from one script to the
 * next. A script is parsed, bound and checked as a file of its own that the program never
 * includes: the checker resolves its names through the program's globals, and what it learnt of
 * the library and the declarations (a few hundred milliseconds cold) serves every later script,
 * which then costs about what its own code costs. What each script leaves in the checker's caches
 * is bounded by rebuilding the program once the heap has grown by CHECKER_HEAP_GROWTH_MAX_BYTES.
 *
 * `ts.bindSourceFile` and the checker's `getDiagnostics(file)` are the compiler's own internals
 * (what `program.getSemanticDiagnostics` calls): `typescript` is pinned to an exact version.
 */
import { dirname, join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import type * as TS from 'typescript';
import type { CatalogMessage, CheckSource, RawCheck, RawDiagnostic } from './check-messages.js';
import { countedDiagnostics, unknownToolNames, type CheckContext, type CountedDiagnostic } from './checked-diagnostics.js';
import { GUEST_GLOBALS } from './guest-globals.js';
import { optsOut, silenced, wrapSource } from './wrapped-source.js';

/** 2: catalogs whose programs are kept (the current one, and the one before while scripts given it still come). */
const PROGRAMS_KEPT = 2;

/**
 * 48 MiB: how far the worker's heap may grow past what its warm programs take before they are
 * rebuilt (each check leaves its script's types in the checker: ~0.3 MiB for a dense 40 lines).
 */
export const CHECKER_HEAP_GROWTH_MAX_BYTES = 48 * 1024 * 1024;

const DIRECTORY = '/codemode';
const GLOBALS_FILE = `${DIRECTORY}/guest-globals.d.ts`;
const TOOLS_FILE = `${DIRECTORY}/tools.d.ts`;

/** A script that touches what most scripts touch: checked once per program, so the first real check is warm. */
const WARM_UP = `const r = await tools["__warm_up__"]({});
const t = r.content[0].text;
const xs = [1, 2, 3].map((x) => x * 2).filter((x) => x > 2);
const all = await Promise.all(xs.map(async (x) => ({ x, t, s: r.structuredContent })));
const o = JSON.parse(t ?? "{}");
for (const [k, v] of Object.entries(o)) console.log(k, String(v).slice(0, 10), all.length);
await store("k", { n: xs.reduce((a, b) => a + b, 0) });
return { keys: Object.keys(o).join(","), v: await load("k") };`;

/** The compiler's internals this module calls, which its public types leave out. */
interface Internals {
  bindSourceFile(file: TS.SourceFile, options: TS.CompilerOptions): void;
}
interface InternalChecker {
  getDiagnostics(file: TS.SourceFile): readonly TS.Diagnostic[];
}
interface InternalSourceFile {
  readonly parseDiagnostics: readonly TS.Diagnostic[];
}

interface WarmProgram {
  readonly catalog: CatalogMessage;
  readonly checker: TS.TypeChecker;
  readonly context: Omit<CheckContext, 'unlisted'>;
}

export class CheckCompiler {
  private readonly options: TS.CompilerOptions;
  private readonly libDirectory: string;
  /** The library's files, parsed and bound once for every program. */
  private readonly libraryFiles = new Map<string, TS.SourceFile>();
  private readonly globalsFile: TS.SourceFile;
  private readonly programs = new Map<number, WarmProgram>();
  private heapBase = 0;
  private scripts = 0;

  constructor(private readonly ts: typeof TS) {
    this.options = {
      noEmit: true,
      // What is checked is names and shapes (checked-diagnostics.ts), never a script's own types.
      strict: false,
      noImplicitAny: false,
      strictNullChecks: false,
      useUnknownInCatchVariables: false,
      alwaysStrict: false,
      allowJs: true,
      checkJs: true,
      target: ts.ScriptTarget.ESNext,
      // The language, no DOM and no Node: what QuickJS has; the rest is guest-globals.ts.
      lib: ['lib.esnext.d.ts'],
      types: [],
      noResolve: true,
      skipLibCheck: true,
      allowUnreachableCode: true,
      allowUnusedLabels: true,
    };
    this.libDirectory = dirname(ts.getDefaultLibFilePath(this.options));
    this.globalsFile = ts.createSourceFile(GLOBALS_FILE, GUEST_GLOBALS, ts.ScriptTarget.ESNext, true, ts.ScriptKind.TS);
  }

  /** Builds the program of a catalog (if this worker has none yet), and warms its checker. */
  prepare(catalog: CatalogMessage): void {
    if (this.programs.has(catalog.key)) return;
    this.programs.set(catalog.key, this.build(catalog));
    for (const key of [...this.programs.keys()].slice(0, Math.max(0, this.programs.size - PROGRAMS_KEPT))) {
      this.programs.delete(key);
    }
    this.heapBase = getHeapStatistics().used_heap_size;
  }

  check(key: number, source: CheckSource, unlisted: readonly string[]): RawCheck {
    const warm = this.programs.get(key);
    if (warm === undefined) throw new Error(`no program for catalog ${key}: prepare it first`);
    return this.checkIn(warm, source, unlisted);
  }

  /** Whether the checks have grown the heap past its bound: then `recycle`, between checks. */
  grown(): boolean {
    return getHeapStatistics().used_heap_size - this.heapBase > CHECKER_HEAP_GROWTH_MAX_BYTES;
  }

  /** Rebuilds the programs, dropping what the checks left in their checkers. */
  recycle(): void {
    const catalogs = [...this.programs.values()].map((warm) => warm.catalog);
    this.programs.clear();
    for (const catalog of catalogs) this.programs.set(catalog.key, this.build(catalog));
    this.heapBase = getHeapStatistics().used_heap_size;
  }

  private build(catalog: CatalogMessage): WarmProgram {
    const { ts } = this;
    const toolsFile = ts.createSourceFile(TOOLS_FILE, catalog.text, ts.ScriptTarget.ESNext, true, ts.ScriptKind.TS);
    const host = this.compilerHost(toolsFile);
    const program = ts.createProgram({ rootNames: [GLOBALS_FILE, TOOLS_FILE], options: this.options, host });
    const checker = program.getTypeChecker();
    const toolsSymbol = checker.getSymbolsInScope(this.globalsFile, ts.SymbolFlags.Variable).find((s) => s.name === 'tools');
    const warm: WarmProgram = {
      catalog,
      checker,
      context: {
        ts,
        checker,
        declarationFiles: new Set([GLOBALS_FILE, TOOLS_FILE]),
        toolsSymbol,
        aliases: new Map(Object.entries(catalog.aliases)),
        names: new Set(catalog.names),
        denied: new Set(catalog.denied),
      },
    };
    this.checkIn(warm, { code: WARM_UP }, []);
    return warm;
  }

  private compilerHost(toolsFile: TS.SourceFile): TS.CompilerHost {
    const { ts } = this;
    const ours = new Map([
      [GLOBALS_FILE, this.globalsFile],
      [TOOLS_FILE, toolsFile],
    ]);
    const library = (fileName: string): TS.SourceFile | undefined => {
      let file = this.libraryFiles.get(fileName);
      if (file === undefined) {
        const text = ts.sys.readFile(fileName);
        if (text === undefined) return undefined;
        file = ts.createSourceFile(fileName, text, ts.ScriptTarget.ESNext, false, ts.ScriptKind.TS);
        this.libraryFiles.set(fileName, file);
      }
      return file;
    };
    return {
      getSourceFile: (fileName) => ours.get(fileName) ?? (fileName.startsWith(this.libDirectory) ? library(fileName) : undefined),
      getDefaultLibFileName: (options) => join(this.libDirectory, ts.getDefaultLibFileName(options)),
      getDefaultLibLocation: () => this.libDirectory,
      writeFile: () => undefined,
      getCurrentDirectory: () => DIRECTORY,
      getCanonicalFileName: (fileName) => fileName,
      useCaseSensitiveFileNames: () => true,
      getNewLine: () => '\n',
      fileExists: (fileName) => ours.has(fileName) || (fileName.startsWith(this.libDirectory) && ts.sys.fileExists(fileName)),
      readFile: (fileName) =>
        ours.get(fileName)?.text ?? (fileName.startsWith(this.libDirectory) ? ts.sys.readFile(fileName) : undefined),
    };
  }

  private checkIn(warm: WarmProgram, source: CheckSource, unlisted: readonly string[]): RawCheck {
    const { ts } = this;
    const wrapped = wrapSource(source);
    const language = wrapped.language;
    if (optsOut(source.code)) return { language, skipped: 'nocheck', syntax: [], diagnostics: [] };
    const extension = language === 'typescript' ? 'ts' : 'js';
    const kind = language === 'typescript' ? ts.ScriptKind.TS : ts.ScriptKind.JS;
    // A name of its own: the checker keeps diagnostics by file name.
    this.scripts += 1;
    const file = ts.createSourceFile(
      `${DIRECTORY}/script-${this.scripts}.${extension}`,
      wrapped.text,
      ts.ScriptTarget.ESNext,
      true,
      kind,
    );
    const lines = source.code.split('\n');
    const place = (start: number): { line: number; column: number } => placeInScript(file, lines, start);
    const parseErrors = (file as unknown as InternalSourceFile).parseDiagnostics;
    if (parseErrors.length > 0) {
      const syntax = parseErrors.map((d) => ({
        ...place(d.start ?? 0),
        code: d.code,
        message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
      }));
      return { language, syntax, diagnostics: [] };
    }
    (ts as unknown as Internals).bindSourceFile(file, this.options);
    const context: CheckContext = {
      ...warm.context,
      unlisted,
      wrapper: { file: file.fileName, end: wrapped.text.indexOf('\n') },
    };
    const found = [
      ...unknownToolNames(context, file),
      ...countedDiagnostics(context, file, (warm.checker as unknown as InternalChecker).getDiagnostics(file)),
    ];
    const diagnostics = found
      .map((d): RawDiagnostic & { start: number } => ({ ...toRaw(d), ...place(d.start), start: d.start }))
      .filter((d) => !silenced(lines, d.line - 1))
      .sort((a, b) => a.start - b.start)
      .map(({ start: _start, ...d }) => d);
    return { language, syntax: [], diagnostics };
  }
}

function toRaw(d: CountedDiagnostic): Omit<RawDiagnostic, 'line' | 'column'> {
  return {
    code: d.code,
    message: d.message,
    ...(d.tool !== undefined ? { tool: d.tool } : {}),
    ...(d.unknownTool !== undefined ? { unknownTool: d.unknownTool } : {}),
  };
}

/** A position of the wrapped file as the script's 1-based line and column; the wrapper's own lines fall on the script's first or last. */
function placeInScript(file: TS.SourceFile, lines: readonly string[], start: number): { line: number; column: number } {
  const at = file.getLineAndCharacterOfPosition(start);
  if (at.line < 1) return { line: 1, column: 1 };
  if (at.line > lines.length) return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
  return { line: at.line, column: at.character + 1 };
}
