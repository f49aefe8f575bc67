// npm run docs:settings: writes the settings table, made from the specs in src/config/ (built into
// dist/ first), between its markers in each doc that has them. test/docs/settings-table.test.ts
// fails while a doc's table differs from the specs.
import { readFileSync, writeFileSync } from 'node:fs';

const { writeSettingsTable } = await import(new URL('../dist/src/config/settings-table.js', import.meta.url).href);
const DOCS = ['README.md', 'docs/config.md'];

let written = 0;
for (const doc of DOCS) {
  const url = new URL(`../${doc}`, import.meta.url);
  const text = readFileSync(url, 'utf8');
  const next = writeSettingsTable(text);
  if (next === null) continue;
  written += 1;
  if (next !== text) writeFileSync(url, next);
  process.stderr.write(`${next === text ? 'unchanged' : 'written'}: the settings table in ${doc}\n`);
}
if (written === 0) {
  process.stderr.write(`no settings table markers in ${DOCS.join(' or ')}; see src/config/settings-table.ts for them\n`);
  process.exitCode = 1;
}
