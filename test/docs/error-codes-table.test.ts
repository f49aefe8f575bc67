/** The table of error codes in the docs is the one the registry makes: one source, written by npm run docs:errors. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/support/error-codes.js';
import { CODES_END, CODES_START, renderErrorCodesTable, writeErrorCodesTable } from '../../src/support/error-codes-table.js';

const text = readFileSync(new URL('../../docs/scripts.md', import.meta.url), 'utf8');

describe('the table of error codes', () => {
  it('is in docs/scripts.md as the registry makes it (else run npm run docs:errors)', () => {
    expect(text).toContain(CODES_START);
    expect(text).toContain(CODES_END);
    expect(text).toBe(writeErrorCodesTable(text));
  });

  it('has one row for every code', () => {
    const rows = renderErrorCodesTable().split('\n');
    for (const code of Object.keys(ERROR_CODES)) {
      expect(rows.filter((row) => row.startsWith(`| \`${code}\` |`))).toHaveLength(1);
    }
  });
});
