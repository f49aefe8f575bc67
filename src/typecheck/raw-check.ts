/**
 * What is checked and what a check finds (check-program.ts): a script's or skill's code in, the
 * diagnostics that count out, in the script's own lines and columns.
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

/** What a check found: the code's syntax errors, or the diagnostics that count (checked-diagnostics.ts). */
export interface RawCheck {
  readonly language: Language;
  /** `// @ts-nocheck` at the top: not checked. */
  readonly skipped?: 'nocheck';
  readonly syntax: readonly RawDiagnostic[];
  readonly diagnostics: readonly RawDiagnostic[];
}
