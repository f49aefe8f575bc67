import { describe, expect, it } from 'vitest';
import {
  PAGE_FOLD_CHARS,
  PAGE_FOLD_ENTRIES,
  escapeText,
  formatWait,
  renderArguments,
} from '../../../src/approvals/page/page-text.js';

/** The text a browser shows for `html` (tags dropped, entities read), enough for these checks. */
function shownText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

describe("the approval page's text", () => {
  it('escapes markup, so a value can open no tag and close no attribute', () => {
    const html = escapeText(`<script>alert(1)</script>"><img src=x onerror='y'>&amp;`);
    expect(html).not.toMatch(/[<>"']/);
    expect(shownText(html)).toBe(`<script>alert(1)</script>"><img src=x onerror='y'>&amp;`);
  });

  it.each([
    ['a bidi override', '\u202E', '\\u202e'],
    ['a right-to-left mark', '\u200F', '\\u200f'],
    ['an isolate', '\u2066', '\\u2066'],
    ['a line separator', '\u2028', '\\u2028'],
    ['a next-line control', '\u0085', '\\u0085'],
    ['an escape', '\u001B', '\\u001b'],
    ['a newline', '\n', '\\u000a'],
    ['a zero-width space', '\u200B', '\\u200b'],
    ['a lone surrogate', '\uD800', '\\ud800'],
  ])('shows %s as its marked escape, never the character itself', (_what, char, shown) => {
    const html = escapeText(`a${char}b`);
    expect(html).not.toContain(char);
    expect(html).toContain(`<span class="hidden-char" title="a character that does not show">${shown}</span>`);
  });

  it('keeps letters of every script as they are', () => {
    expect(escapeText('Grüße, 日本語, עברית, emoji 🎉')).toBe('Grüße, 日本語, עברית, emoji 🎉');
  });

  it('renders arguments as pretty JSON, markup and hidden characters in strings escaped', () => {
    const html = renderArguments(
      JSON.stringify({ path: '"><img onerror=x>', name: 'evil\u202Etxt.exe', n: 3, ok: true, none: null }),
    );
    expect(html).not.toMatch(/<img|\u202E/);
    expect(shownText(html)).toBe(
      '{\n  "path": "\\"><img onerror=x>",\n  "name": "evil\\u202etxt.exe",\n  "n": 3,\n  "ok": true,\n  "none": null\n}',
    );
  });

  it('folds a long string whole behind its start, saying how long it is, and cuts nothing', () => {
    const long = 'x'.repeat(PAGE_FOLD_CHARS + 1_000);
    const html = renderArguments(JSON.stringify({ content: long }));
    expect(html).toContain('<details><summary>');
    expect(html).toContain(`(${(PAGE_FOLD_CHARS + 1_000).toLocaleString('en-US')} characters: open to see them all)`);
    expect(shownText(html)).toContain(`"${long}"`);
  });

  it('folds a long array whole behind its count, and keeps a short one open', () => {
    const items = Array.from({ length: PAGE_FOLD_ENTRIES + 1 }, (_, i) => i);
    const html = renderArguments(JSON.stringify({ items, few: [1, 2] }));
    expect(html).toContain(`<summary>[ … ${PAGE_FOLD_ENTRIES + 1} items ]</summary>`);
    expect(shownText(html)).toContain(`  ${PAGE_FOLD_ENTRIES}\n`);
    expect(shownText(html)).toContain('"few": [\n    1,\n    2\n  ]');
  });

  it('shows text that is not JSON as it is, escaped', () => {
    expect(renderArguments('<not json')).toBe('<div class="json">&lt;not json</div>');
  });

  it('says how long in seconds, minutes and hours', () => {
    expect([formatWait(400), formatWait(12_000), formatWait(248_000), formatWait(7_500_000)]).toEqual([
      '0 s',
      '12 s',
      '4 min 8 s',
      '2 h 5 min',
    ]);
  });
});
