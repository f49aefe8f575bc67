/**
 * Text on the approval page, made safe to show: every value escaped for HTML, and every character
 * a person could not see or that could reorder what they read (controls, bidi marks and overrides,
 * zero-width characters, line and paragraph separators) shown as its `\uXXXX` escape, marked, so an
 * upstream's title or a script's arguments can't draw lines or buttons of their own. Pure.
 */
import { groupThousands } from '../../../common/format-numbers.js';

/** 200: characters of a string value shown unfolded; a longer one is folded, whole, behind its first part. */
export const PAGE_FOLD_CHARS = 200;

/** 50: entries of an array or object shown unfolded; a larger one is folded, whole, behind its count. */
export const PAGE_FOLD_ENTRIES = 50;

const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `text` as HTML: `<` and the like escaped, hidden characters shown as marked `\uXXXX`. */
export function escapeText(text: string): string {
  let html = '';
  for (const char of text) {
    if (HIDDEN.test(char)) {
      const code = char.codePointAt(0)!;
      const shown = code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
      html += `<span class="hidden-char" title="a character that does not show">${shown}</span>`;
    } else html += ESCAPES[char] ?? char;
  }
  return html;
}

/**
 * A call's arguments (JSON text) as pretty JSON in HTML: strings past PAGE_FOLD_CHARS and arrays or
 * objects past PAGE_FOLD_ENTRIES are folded (`<details>`), never cut.
 */
export function renderArguments(json: string): string {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return `<div class="json">${escapeText(json)}</div>`;
  }
  return `<div class="json">${renderValue(value, '')}</div>`;
}

function renderValue(value: unknown, indent: string): string {
  if (typeof value === 'string') return renderString(value);
  if (value === null || typeof value !== 'object') return escapeText(JSON.stringify(value) ?? 'null');
  const inner = `${indent}  `;
  const isArray = Array.isArray(value);
  const entries: Array<[string | undefined, unknown]> = isArray
    ? (value as unknown[]).map((item) => [undefined, item])
    : Object.entries(value as Record<string, unknown>);
  const [open, close] = isArray ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return `${open}${close}`;
  const body = entries
    .map(([key, item]) => `${inner}${key === undefined ? '' : `${renderString(key)}: `}${renderValue(item, inner)}`)
    .join(',\n');
  if (entries.length <= PAGE_FOLD_ENTRIES) return `${open}\n${body}\n${indent}${close}`;
  const count = `${groupThousands(entries.length)} ${isArray ? 'items' : 'fields'}`;
  return `<details><summary>${open} … ${count} ${close}</summary>${open}\n${body}\n${indent}${close}</details>`;
}

/** A string as JSON writes it (quoted, `\n` and `\"` escaped), folded past PAGE_FOLD_CHARS. */
function renderString(text: string): string {
  const quoted = JSON.stringify(text);
  if (text.length <= PAGE_FOLD_CHARS) return escapeText(quoted);
  const start = JSON.stringify(text.slice(0, PAGE_FOLD_CHARS)).slice(0, -1);
  return (
    `<details><summary>${escapeText(start)}…" (${groupThousands(text.length)} characters: open to see them all)</summary>` +
    `${escapeText(quoted)}</details>`
  );
}

/** `12 s`, `4 min 8 s`, `2 h 5 min`. */
export function formatWait(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min${seconds % 60 > 0 ? ` ${seconds % 60} s` : ''}`;
  return `${Math.floor(minutes / 60)} h${minutes % 60 > 0 ? ` ${minutes % 60} min` : ''}`;
}
