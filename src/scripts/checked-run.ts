/**
 * What the type check (issue 47) means for a run, decided before a child is taken or anything is
 * sent: `refused` and `too-costly` (its own check ran past typeCheckTimeoutMs or the compiler's
 * memory) refuse the script (nothing runs); `warned` runs it with what was found added to its
 * answer, and so do `too-slow` (the limit passed before its own check began: a wait never holds a
 * run up past it) and `unavailable` (no checker), saying it ran unchecked; `passed` runs it as it is.
 */
import type { CatalogTool } from '../catalog/types.js';
import type { CheckDiagnostic } from '../typecheck/outcome-text.js';
import type { OwnerApis } from './script-apis.js';

/** A script the check refused: the text the model is given, and each problem as data. */
export interface TypeRefusal {
  readonly text: string;
  readonly diagnostics: readonly CheckDiagnostic[];
}

export type CheckedRun = { readonly refused: TypeRefusal } | { readonly note?: string };

/** Checks `code` against `catalog`, the array the script will be given; with no check (typeCheck off), runs it. */
export async function checkBeforeRun(
  apis: Pick<OwnerApis, 'typeCheck'>,
  code: string,
  catalog: readonly CatalogTool[],
): Promise<CheckedRun> {
  if (apis.typeCheck === undefined) return {};
  const outcome = await apis.typeCheck(code, catalog);
  switch (outcome.kind) {
    case 'passed':
      return {};
    case 'refused':
      return { refused: { text: outcome.text, diagnostics: outcome.diagnostics } };
    case 'too-costly':
      return { refused: { text: outcome.text, diagnostics: [] } };
    case 'warned':
    case 'too-slow':
    case 'unavailable':
      return { note: outcome.text };
  }
}
