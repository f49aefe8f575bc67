// npm run docs:errors: writes the table of error codes, made from the registry in
// src/support/error-codes.ts (built into dist/ first), between its markers in docs/scripts.md.
// test/docs/error-codes-table.test.ts fails while the doc's table differs from the registry.
import { readFileSync, writeFileSync } from 'node:fs';

const { writeErrorCodesTable } = await import(new URL('../dist/src/support/error-codes-table.js', import.meta.url).href);
const DOC = 'docs/scripts.md';

const url = new URL(`../${DOC}`, import.meta.url);
const text = readFileSync(url, 'utf8');
const next = writeErrorCodesTable(text);
if (next === null) {
  process.stderr.write(`no error codes markers in ${DOC}; see src/support/error-codes-table.ts for them\n`);
  process.exitCode = 1;
} else {
  if (next !== text) writeFileSync(url, next);
  process.stderr.write(`${next === text ? 'unchanged' : 'written'}: the error codes in ${DOC}\n`);
}
