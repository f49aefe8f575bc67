/**
 * The README's settings table, made from the specs (npm run docs:settings writes it between its
 * markers; test/docs/settings-table.test.ts fails when what is written differs).
 */
import { writeBetweenMarkers } from '../support/marked-section.js';
import { ALL_SETTINGS, type SettingSpec } from './settings.js';
import { AT_MOST_RULES, ONE_OF_RULES } from './settings-together.js';

export const TABLE_START =
  '<!-- settings table: made from src/config/ by `npm run docs:settings`; change the specs, not this -->';
export const TABLE_END = '<!-- end of the settings table -->';

/** A table cell: a pipe would end it. */
const cell = (text: string): string => text.replaceAll('|', '\\|');

function flagCell(spec: SettingSpec): string {
  return spec.repeatable ? `\`--${spec.flag} ${spec.placeholder ?? ''}\`, repeatable` : `\`--${spec.flag}\``;
}

/** The rules that tie settings together, as a sentence. */
function rulesText(): string {
  const clashes = [
    ...AT_MOST_RULES.map(({ lower, upper }) => `a \`${lower}\` past \`${upper}\``),
    ...ONE_OF_RULES.map(({ names }) => `both ${names.map((name) => `\`${name}\``).join(' and ')}`),
  ];
  const last = clashes.pop();
  return `A value out of range stops the server with a message naming the setting and its range; so does ${clashes.join(', ')}, or ${last}.`;
}

/** The table, with the sentence on the rules before it: what goes between the markers. */
export function renderSettingsTable(): string {
  const rows = ALL_SETTINGS.map(
    (spec) =>
      `| \`${spec.name}\` | ${cell(flagCell(spec))} | ${cell(spec.defaultMarkdown)} | ${cell(spec.rangeMarkdown)} | ${cell(spec.details)} |`,
  );
  return [rulesText(), '', '| setting | flag | default | range | past it |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** `text` with the table between its markers made anew; null when it has no markers. */
export function writeSettingsTable(text: string): string | null {
  return writeBetweenMarkers(text, TABLE_START, TABLE_END, renderSettingsTable());
}
