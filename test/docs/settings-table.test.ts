/** The settings table in the docs is the one the specs make: one source, written by npm run docs:settings. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALL_SETTINGS } from '../../src/config/settings.js';
import {
  SETTINGS_TABLE_DOC,
  TABLE_END,
  TABLE_START,
  renderSettingsTable,
  writeSettingsTable,
} from '../../src/config/settings-table.js';

const read = (doc: string): string => readFileSync(new URL(`../../${doc}`, import.meta.url), 'utf8');

describe('the settings table', () => {
  it('is in docs/config.md, between its markers, and no longer in the README, which links to it', () => {
    expect(SETTINGS_TABLE_DOC).toBe('docs/config.md');
    expect(read(SETTINGS_TABLE_DOC)).toContain(TABLE_START);
    expect(read(SETTINGS_TABLE_DOC)).toContain(TABLE_END);
    expect(read('README.md')).not.toContain(TABLE_START);
    expect(read('README.md')).toContain('](docs/config.md#every-setting)');
  });

  it('is in docs/config.md as the specs make it (else run npm run docs:settings)', () => {
    const text = read(SETTINGS_TABLE_DOC);
    expect(text).toBe(writeSettingsTable(text));
  });

  it('has a row for every setting, naming its flag', () => {
    const rows = renderSettingsTable().split('\n');
    for (const spec of ALL_SETTINGS) {
      expect(rows.filter((row) => row.startsWith(`| \`${spec.name}\` | \`--${spec.flag}`))).toHaveLength(1);
    }
  });

  it("writes each spec's links from the repository's root, and makes them relative to docs/config.md", () => {
    const words = ALL_SETTINGS.map((spec) => `${spec.defaultMarkdown} ${spec.rangeMarkdown} ${spec.details}`).join('\n');
    expect(words).not.toContain('](#');
    expect(words).not.toContain('](../');
    const table = renderSettingsTable();
    expect(table).not.toContain('](docs/');
    expect(words).toContain('](docs/deploy.md#draining)');
    expect(table).toContain('](deploy.md#draining)');
    expect(words).toContain('](docs/config.md#fixed-limits)');
    expect(table).toContain('](#fixed-limits)');
  });

  it('is made anew between the markers, leaving the rest of the document as it was', () => {
    const doc = `# Title\n\nbefore\n\n${TABLE_START}\nold rows\n${TABLE_END}\n\nafter\n`;
    expect(writeSettingsTable(doc)).toBe(
      `# Title\n\nbefore\n\n${TABLE_START}\n${renderSettingsTable()}\n\n${TABLE_END}\n\nafter\n`,
    );
    expect(writeSettingsTable('no markers')).toBeNull();
  });
});
