/** The settings table in the docs is the one the specs make: one source, written by npm run docs:settings. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALL_SETTINGS } from '../../src/config/settings.js';
import { TABLE_END, TABLE_START, renderSettingsTable, writeSettingsTable } from '../../src/config/settings-table.js';

const DOCS = ['README.md', 'docs/config.md'];
const texts = DOCS.map((doc) => ({ doc, text: readFileSync(new URL(`../../${doc}`, import.meta.url), 'utf8') }));

describe('the settings table', () => {
  it('is in the README, between its markers', () => {
    expect(texts[0]!.text).toContain(TABLE_START);
    expect(texts[0]!.text).toContain(TABLE_END);
  });

  it.each(texts)('is in $doc as the specs make it (else run npm run docs:settings)', ({ text }) => {
    const written = writeSettingsTable(text);
    if (written !== null) expect(text).toBe(written);
  });

  it('has a row for every setting, naming its flag', () => {
    const rows = renderSettingsTable().split('\n');
    for (const spec of ALL_SETTINGS) {
      expect(rows.filter((row) => row.startsWith(`| \`${spec.name}\` | \`--${spec.flag}`))).toHaveLength(1);
    }
  });

  it('is made anew between the markers, leaving the rest of the document as it was', () => {
    const doc = `# Title\n\nbefore\n\n${TABLE_START}\nold rows\n${TABLE_END}\n\nafter\n`;
    expect(writeSettingsTable(doc)).toBe(
      `# Title\n\nbefore\n\n${TABLE_START}\n${renderSettingsTable()}\n\n${TABLE_END}\n\nafter\n`,
    );
    expect(writeSettingsTable('no markers')).toBeNull();
  });
});
