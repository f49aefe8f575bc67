/**
 * The settings table of docs/config.md, made from the specs (npm run docs:settings writes it
 * between its markers; test/docs/settings-table.test.ts fails when what is written differs).
 */
import { posix } from 'node:path';
import { ALL_SETTINGS, type SettingSpec } from './settings.js';
import { AT_MOST_RULES, ONE_OF_RULES } from './settings-together.js';

export const TABLE_START =
  '<!-- settings table: made from src/config/ by `npm run docs:settings`; change the specs, not this -->';
export const TABLE_END = '<!-- end of the settings table -->';

/** The doc that holds the table, from the repository's root. */
export const SETTINGS_TABLE_DOC = 'docs/config.md';

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

/**
 * The specs' links, written from the repository's root (`docs/deploy.md#draining`), made relative
 * to `doc`: a link into `doc` itself keeps only its anchor.
 */
function relinkFrom(doc: string, markdown: string): string {
  return markdown.replace(/\]\(([^)\s]+)\)/g, (whole, target: string) => {
    if (/^[a-z][a-z+.-]*:/i.test(target) || target.startsWith('#')) return whole;
    const [path = '', anchor] = target.split('#');
    const relative = path === doc ? '' : posix.relative(posix.dirname(doc), path);
    return `](${relative}${anchor === undefined ? '' : `#${anchor}`})`;
  });
}

/** The table, with the sentence on the rules before it: what goes between the markers. */
export function renderSettingsTable(): string {
  const rows = ALL_SETTINGS.map(
    (spec) =>
      `| \`${spec.name}\` | ${cell(flagCell(spec))} | ${cell(spec.defaultMarkdown)} | ${cell(spec.rangeMarkdown)} | ${cell(spec.details)} |`,
  );
  const table = [rulesText(), '', '| setting | flag | default | range | past it |', '|---|---|---|---|---|', ...rows];
  return relinkFrom(SETTINGS_TABLE_DOC, table.join('\n'));
}

/** `text` with the table between its markers made anew; null when it has no markers. */
export function writeSettingsTable(text: string): string | null {
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END);
  if (start === -1 || end < start) return null;
  return `${text.slice(0, start + TABLE_START.length)}\n${renderSettingsTable()}\n\n${text.slice(end)}`;
}
