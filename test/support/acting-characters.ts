/**
 * Every kind of character that acts on what a person reads instead of showing, with the escape a
 * person must see for it (src/support/echo.ts, revealControls): the tests of each place that shows
 * an upstream's or a script's text run through all of them.
 */
export const ACTING_KINDS: ReadonlyArray<readonly [kind: string, char: string, shown: string]> = [
  ['C0: NUL', '\u0000', '\\u0000'],
  ['C0: newline', '\n', '\\n'],
  ['C0: carriage return', '\r', '\\r'],
  ['C0: tab', '\t', '\\t'],
  ['C0: ESC', '\u001b', '\\u001b'],
  ['DEL', '\u007f', '\\u007f'],
  ['C1: NEL', '\u0085', '\\u0085'],
  ['C1: CSI', '\u009b', '\\u009b'],
  ['bidi: ALM', '\u061c', '\\u061c'],
  ['bidi: LRM', '\u200e', '\\u200e'],
  ['bidi: RLM', '\u200f', '\\u200f'],
  ['bidi: LRE', '\u202a', '\\u202a'],
  ['bidi: RLE', '\u202b', '\\u202b'],
  ['bidi: PDF', '\u202c', '\\u202c'],
  ['bidi: LRO', '\u202d', '\\u202d'],
  ['bidi: RLO', '\u202e', '\\u202e'],
  ['bidi: LRI', '\u2066', '\\u2066'],
  ['bidi: RLI', '\u2067', '\\u2067'],
  ['bidi: FSI', '\u2068', '\\u2068'],
  ['bidi: PDI', '\u2069', '\\u2069'],
  ['line separator', '\u2028', '\\u2028'],
  ['paragraph separator', '\u2029', '\\u2029'],
];

/** All of them in one string, as a hostile upstream would put them in a title. */
export const ALL_ACTING = ACTING_KINDS.map(([, char]) => char).join('');

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/gu;

/**
 * The acting characters `text` holds raw, as their escapes (none: `[]`). `lines`: newlines (and
 * tabs) are the text's own, as in a log line or a declaration; otherwise a tab counts too.
 */
export function rawActing(text: string, keep: 'lines' | 'nothing' = 'nothing'): string[] {
  const found = [...text.matchAll(RAW)].map(([char]) => char).filter((char) => keep === 'nothing' || char !== '\n');
  if (keep === 'nothing' && text.includes('\t')) found.push('\t');
  return found.map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
