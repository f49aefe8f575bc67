/**
 * What the type check (issue 47) means for a run, decided before a child is taken or anything is
 * sent: `refused` and `too-slow` refuse the script (nothing runs); `warned` and `unavailable` run
 * it with the check's text added to its answer; `passed` runs it as it is.
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
    case 'too-slow':
      return { refused: { text: outcome.text, diagnostics: [] } };
    case 'warned':
    case 'unavailable':
      return { note: outcome.text };
  }
}
