/**
 * The checker's programs, in the native compiler (compiler-process.ts): a TypeScript project per
 * catalog in the compiler's directory (the standard library, the guest globals, the catalog's
 * tools, the script), opened once. A check writes the script and takes a new snapshot, in which
 * the compiler reads the script again and keeps the rest as it parsed it; then the script's
 * diagnostics are asked for, and the rules (checked-diagnostics.ts) say which count.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { API, Diagnostic, Snapshot } from 'typescript-native/unstable/async';
import { logFailure } from '../support/log.js';
import type { CompilerProcess } from './compiler-process.js';
import { countedDiagnostics, unknownToolNames, type CheckContext, type CountedDiagnostic } from './checked-diagnostics.js';
import { GUEST_GLOBALS } from './guest-globals.js';
import type { CheckSource, Language, RawCheck, RawDiagnostic } from './raw-check.js';
import type { ToolTypes } from './tool-types.js';
import { optsOut, silenced, wrapSource } from './wrapped-source.js';

/** 2: catalogs whose projects are kept (the current one, and the one before while scripts given it still come). */
const PROJECTS_KEPT = 2;

const GLOBALS_FILE = 'guest-globals.d.ts';
const TOOLS_FILE = 'tools.d.ts';
const SCRIPT_FILES: Readonly<Record<Language, string>> = { typescript: 'script.ts', javascript: 'script.js' };

/** What is checked is names and shapes (checked-diagnostics.ts), never a script's own types. */
const COMPILER_OPTIONS = {
  noEmit: true,
  strict: false,
  noImplicitAny: false,
  strictNullChecks: false,
  useUnknownInCatchVariables: false,
  alwaysStrict: false,
  allowJs: true,
  checkJs: true,
  target: 'esnext',
  // The language, no DOM and no Node: what QuickJS has; the rest is guest-globals.ts.
  lib: ['esnext'],
  types: [],
  noResolve: true,
  skipLibCheck: true,
  allowUnreachableCode: true,
  allowUnusedLabels: true,
};

/** A script that touches what most scripts touch: checked once per project, so the first real check finds the compiler warm. */
const WARM_UP = `const r = await tools["__warm_up__"]({});
const t = r.content[0].text;
const xs = [1, 2, 3].map((x) => x * 2).filter((x) => x > 2);
const all = await Promise.all(xs.map(async (x) => ({ x, t, s: r.structuredContent })));
const o = JSON.parse(t ?? "{}");
for (const [k, v] of Object.entries(o)) console.log(k, String(v).slice(0, 10), all.length);
await store("k", { n: xs.reduce((a, b) => a + b, 0) });
return { keys: Object.keys(o).join(","), v: await load("k") };`;

/** One catalog's project: its folder, and the language its script file holds now. */
interface CatalogProject {
  readonly types: ToolTypes;
  readonly folder: string;
  readonly config: string;
  /** The script file with code in it (the other is empty): a JavaScript script is a .js file, checked as one. */
  current: Language;
}

export class CheckCompiler {
  private readonly projects = new Map<number, CatalogProject>();
  private snapshot: Snapshot | undefined;

  constructor(private readonly compiler: CompilerProcess) {
    writeFileSync(join(compiler.directory, GLOBALS_FILE), GUEST_GLOBALS);
  }

  /** Opens the project of a catalog (if it has none yet), and warms the compiler with it. */
  async prepare(types: ToolTypes): Promise<void> {
    if (this.projects.has(types.key)) return;
    const folder = join(this.compiler.directory, `catalog-${types.key}`);
    const config = join(folder, 'tsconfig.json');
    mkdirSync(folder);
    writeFileSync(join(folder, TOOLS_FILE), types.text);
    for (const file of Object.values(SCRIPT_FILES)) writeFileSync(join(folder, file), '');
    writeFileSync(
      config,
      JSON.stringify({
        compilerOptions: COMPILER_OPTIONS,
        files: [`../${GLOBALS_FILE}`, TOOLS_FILE, ...Object.values(SCRIPT_FILES)],
      }),
    );
    const dropped = [...this.projects.values()].slice(0, Math.max(0, this.projects.size - PROJECTS_KEPT + 1));
    await this.update({ openProjects: [config], closeProjects: dropped.map((project) => project.config) });
    for (const project of dropped) {
      this.projects.delete(project.types.key);
      rmSync(project.folder, { recursive: true, force: true });
    }
    this.projects.set(types.key, { types, folder, config, current: 'typescript' });
    await this.check(types.key, { code: WARM_UP }, []);
  }

  async check(key: number, source: CheckSource, unlisted: readonly string[]): Promise<RawCheck> {
    const project = this.projects.get(key);
    if (project === undefined) throw new Error(`no project for catalog ${key}: prepare it first`);
    const wrapped = wrapSource(source);
    const { language } = wrapped;
    if (optsOut(source.code)) return { language, skipped: 'nocheck', syntax: [], diagnostics: [] };
    const path = join(project.folder, SCRIPT_FILES[language]);
    const changed = [path];
    writeFileSync(path, wrapped.text);
    if (project.current !== language) {
      const other = join(project.folder, SCRIPT_FILES[project.current]);
      writeFileSync(other, '');
      changed.push(other);
      project.current = language;
    }
    const snapshot = await this.update({ fileChanges: { changed } });
    const opened = snapshot.getProject(project.config);
    if (opened === undefined) throw new Error(`the compiler has no project ${project.config}`);
    const { program } = opened;
    const lines = source.code.split('\n');
    const place = (start: number) => placeInScript(wrapped.text, lines, start);
    // Asked together: one round trip's wait, not three.
    const [syntax, semantic, file] = await Promise.all([
      program.getSyntacticDiagnostics(path),
      program.getSemanticDiagnostics(path),
      program.getSourceFile(path),
    ]);
    if (syntax.length > 0) {
      return { language, syntax: syntax.map((d) => ({ ...place(d.pos), code: d.code, message: d.text })), diagnostics: [] };
    }
    if (file === undefined) throw new Error(`the compiler has no file ${path}`);
    const { types } = project;
    // The compiler's names for files: the path as given, lowercased where the file system ignores case.
    const named = (name: string): string => (file.path === file.fileName ? name : name.toLowerCase());
    const context: CheckContext = {
      ast: this.compiler.modules.ast,
      checker: opened.checker,
      project: opened,
      file,
      globalsFile: named(join(this.compiler.directory, GLOBALS_FILE)),
      toolsFile: named(join(project.folder, TOOLS_FILE)),
      aliases: new Map(Object.entries(types.aliases)),
      names: new Set(types.names),
      denied: new Set(types.denied),
      unlisted,
      wrapperEnd: wrapped.text.indexOf('\n'),
    };
    const errors = semantic.filter((d: Diagnostic) => d.category === this.compiler.modules.api.DiagnosticCategory.Error);
    const found = [...(await unknownToolNames(context)), ...(await countedDiagnostics(context, errors))];
    const diagnostics = found
      .map((d): RawDiagnostic & { start: number } => ({ ...toRaw(d), ...place(d.start), start: d.start }))
      .filter((d) => !silenced(lines, d.line - 1))
      .sort((a, b) => a.start - b.start)
      .map(({ start: _start, ...d }) => d);
    return { language, syntax: [], diagnostics };
  }

  /** A new snapshot; the one before it is released meanwhile (nothing waits on that). */
  private async update(params: Parameters<API['updateSnapshot']>[0]): Promise<Snapshot> {
    const previous = this.snapshot;
    this.snapshot = await this.compiler.api.updateSnapshot(params);
    void previous?.dispose().catch(logFailure("releasing the type check's previous snapshot"));
    return this.snapshot;
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
function placeInScript(text: string, lines: readonly string[], start: number): { line: number; column: number } {
  const before = text.slice(0, start);
  const line = before.split('\n').length - 1;
  if (line < 1) return { line: 1, column: 1 };
  if (line > lines.length) return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
  return { line, column: start - before.lastIndexOf('\n') };
}
