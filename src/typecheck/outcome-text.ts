/**
 * What the model is told of a type check: each diagnostic at its line and column in its own code,
 * the message cut to a useful size, then the declaration of each tool concerned as describe()
 * prints it (for a name that is no tool, the closest tool's), so the next script can be right.
 */
import { closestName } from '../../common/closest-names.js';
import { CONTENT_TYPE } from '../../common/content-blocks.js';
import { groupThousands } from '../../common/format-numbers.js';
import { cutAtWord } from '../../common/summary.js';
import { declarationOf } from '../catalog/declaration.js';
import type { CatalogTool } from '../catalog/types.js';
import type { RawDiagnostic } from './raw-check.js';

/** 10: diagnostics listed in an answer; the rest are counted. */
export const TYPECHECK_DIAGNOSTICS_SHOWN = 10;

/** 400 characters of one diagnostic's message: the rest is cut, at a word, with "…". */
export const TYPECHECK_MESSAGE_MAX_CHARS = 400;

/** 3: declarations of the tools concerned shown in an answer, the first concerned first. */
export const TYPECHECK_DECLARATIONS_SHOWN = 3;

/** What was checked: a script, or a skill's code. Its diagnostics are `script:3:7`, `skill:3:7`. */
export type Subject = 'script' | 'skill';

/** A diagnostic as the model is given it. */
export interface CheckDiagnostic {
  /** What its line and column are in. */
  readonly in: Subject;
  readonly line: number;
  readonly column: number;
  readonly message: string;
  /** The tool it concerns (for a name that is no tool, the closest one), if any. */
  readonly tool?: string;
}

/** The diagnostics for the model: messages cut, unknown names given their closest tool. */
export function diagnosticsFor(
  raw: readonly RawDiagnostic[],
  catalog: readonly CatalogTool[],
  subject: Subject,
): CheckDiagnostic[] {
  const names = catalog.filter((tool) => tool.allowed).map((tool) => tool.name);
  return raw.map((d) => {
    let message = d.message;
    let tool = d.tool;
    if (d.unknownTool !== undefined) {
      const closest = closestName(d.unknownTool, names);
      tool = closest ?? undefined;
      message +=
        closest === null
          ? ' ALL_TOOLS lists every tool; searchTools(query) finds one by what it does.'
          : ` Did you mean ${JSON.stringify(closest)}?`;
    }
    return {
      in: subject,
      line: d.line,
      column: d.column,
      message: cutAtWord(message, TYPECHECK_MESSAGE_MAX_CHARS),
      ...(tool !== undefined && names.includes(tool) ? { tool } : {}),
    };
  });
}

/** The text after the headline: the diagnostics, a count of the rest, the tools concerned. */
export function diagnosticsText(
  headline: string,
  diagnostics: readonly CheckDiagnostic[],
  catalog: readonly CatalogTool[],
): string {
  const lines = [headline];
  for (const d of diagnostics.slice(0, TYPECHECK_DIAGNOSTICS_SHOWN)) {
    lines.push(`${d.in}:${d.line}:${d.column}: ${d.message.replace(/\n/g, '\n  ')}`);
  }
  const more = diagnostics.length - TYPECHECK_DIAGNOSTICS_SHOWN;
  if (more > 0) lines.push(`… and ${groupThousands(more)} more`);
  const concerned = [...new Set(diagnostics.flatMap((d) => (d.tool === undefined ? [] : [d.tool])))];
  const shown = concerned
    .slice(0, TYPECHECK_DECLARATIONS_SHOWN)
    .map((name) => catalog.find((tool) => tool.name === name))
    .filter((tool): tool is CatalogTool => tool !== undefined);
  if (shown.length > 0) {
    lines.push(
      '',
      `The ${shown.length === 1 ? 'tool' : 'tools'} concerned, as describe() prints ${shown.length === 1 ? 'it' : 'them'}:`,
    );
    for (const tool of shown) lines.push(declarationOf(tool));
    lines.push(CONTENT_TYPE);
  }
  return lines.join('\n');
}

/** "2 problems" */
export function problemsCount(count: number): string {
  return `${groupThousands(count)} ${count === 1 ? 'problem' : 'problems'}`;
}
