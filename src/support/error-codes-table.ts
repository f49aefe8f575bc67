/**
 * The docs' table of error codes, made from the registry (npm run docs:errors writes it between
 * its markers; test/docs/error-codes-table.test.ts fails when what is written differs).
 */
import { writeBetweenMarkers } from './marked-section.js';
import { CODE_GROUPS, ERROR_CODES, type CodeGroup, type ErrorCodeSpec } from './error-codes.js';

export const CODES_START =
  '<!-- error codes: made from src/support/error-codes.ts by `npm run docs:errors`; change the registry, not this -->';
export const CODES_END = '<!-- end of the error codes -->';

/** A table cell: a pipe would end it. */
const cell = (text: string): string => text.replaceAll('|', '\\|');

/** One table per group, each after the sentence saying who reads its codes: what goes between the markers. */
export function renderErrorCodesTable(): string {
  const entries = Object.entries(ERROR_CODES) as Array<[string, ErrorCodeSpec]>;
  return (Object.keys(CODE_GROUPS) as CodeGroup[])
    .map((group) => {
      const rows = entries
        .filter(([, spec]) => spec.group === group)
        .map(([code, spec]) => `| \`${code}\` | ${cell(spec.means)} | ${spec.retry === null ? 'no' : cell(spec.retry)} |`);
      return [`${CODE_GROUPS[group]}.`, '', '| code | what it means | retry can pass |', '|---|---|---|', ...rows].join('\n');
    })
    .join('\n\n');
}

/** `text` with the table between its markers made anew; null when it has no markers. */
export function writeErrorCodesTable(text: string): string | null {
  return writeBetweenMarkers(text, CODES_START, CODES_END, renderErrorCodesTable());
}
