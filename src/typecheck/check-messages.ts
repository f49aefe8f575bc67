/**
 * What the server and the checker's worker say to each other (script-checker.ts, check-worker.ts):
 * the worker is sent a catalog's declarations once, then each script to check, and answers with
 * the diagnostics that count, in the script's own lines and columns.
 */

/** A script's code, or a skill's (its language as saved, and its `input`'s type). */
export interface CheckSource {
  readonly code: string;
  /** A skill's language; a script's is found from its code, as its run finds it. */
  readonly language?: Language;
  /** A skill's `input` type (looseTypeOf its input schema, or `any`); absent for a script. */
  readonly inputType?: string;
}

export type Language = 'typescript' | 'javascript';

/** A diagnostic in the model's own code: 1-based line and column, the compiler's whole message. */
export interface RawDiagnostic {
  readonly line: number;
  readonly column: number;
  /** The compiler's code (TS2345), or 0 for a name that is no tool. */
  readonly code: number;
  readonly message: string;
  /** The tool it concerns: the one called, or whose result is read. */
  readonly tool?: string;
  /** A tool name that is no tool. */
  readonly unknownTool?: string;
}

/** What the worker found: the code's syntax errors, or the diagnostics that count (checked-diagnostics.ts). */
export interface RawCheck {
  readonly language: Language;
  /** `// @ts-nocheck` at the top: not checked. */
  readonly skipped?: 'nocheck';
  readonly syntax: readonly RawDiagnostic[];
  readonly diagnostics: readonly RawDiagnostic[];
}

/** A catalog's declarations, sent once per worker; later checks name its key. */
export interface CatalogMessage {
  readonly key: number;
  readonly text: string;
  readonly names: readonly string[];
  readonly denied: readonly string[];
  readonly aliases: Readonly<Record<string, string>>;
}

export type WorkerRequest =
  | { readonly type: 'prepare'; readonly id: number; readonly catalog: CatalogMessage }
  /** Rebuild the programs: the checks have grown the heap past its bound. */
  | { readonly type: 'recycle'; readonly id: number }
  | {
      readonly type: 'check';
      readonly id: number;
      readonly key: number;
      readonly source: CheckSource;
      readonly unlisted: readonly string[];
    };

export type WorkerReply =
  | { readonly id: number; readonly done: true }
  /** `grown`: the heap has grown past its bound, and the server should send a recycle between checks. */
  | { readonly id: number; readonly result: RawCheck; readonly grown?: true }
  | { readonly id: number; readonly error: string };
