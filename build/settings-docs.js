// npm run docs:settings: writes the settings table, made from the specs in src/config/ (built into
// dist/ first), between its markers in docs/config.md. test/docs/settings-table.test.ts fails
// while the table there differs from the specs.
import { readFileSync, writeFileSync } from 'node:fs';

const { SETTINGS_TABLE_DOC, writeSettingsTable } = await import(
  new URL('../dist/src/config/settings-table.js', import.meta.url).href
);

const url = new URL(`../${SETTINGS_TABLE_DOC}`, import.meta.url);
const text = readFileSync(url, 'utf8');
const next = writeSettingsTable(text);
if (next === null) {
  process.stderr.write(`no settings table markers in ${SETTINGS_TABLE_DOC}; see src/config/settings-table.ts for them\n`);
  process.exitCode = 1;
} else {
  if (next !== text) writeFileSync(url, next);
  process.stderr.write(`${next === text ? 'unchanged' : 'written'}: the settings table in ${SETTINGS_TABLE_DOC}\n`);
}
