/**
 * Words as searchTools and the description's server topics read them: split from names and
 * prose, lowercased, and stemmed so that "deploy", "deploys", "deployed" and "deployment" meet.
 */

/** Words that say nothing about what a tool does. */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'can',
  'for',
  'from',
  'if',
  'in',
  'into',
  'is',
  'it',
  'its',
  'of',
  'on',
  'or',
  'that',
  'the',
  'this',
  'to',
  'with',
]);

/** Lowercase words: camelCase, snake_case, kebab-case, `server__tool` and punctuation all split. */
export function tokenize(text: string): string[] {
  return text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t !== '');
}

/** Suffixes taken off a lowercase word, longest first, each with what it becomes. */
const SUFFIXES: ReadonlyArray<readonly [string, string]> = [
  ['ations', 'ate'],
  ['ation', 'ate'],
  ['ments', ''],
  ['ment', ''],
  ['ings', ''],
  ['ing', ''],
  ['ies', 'y'],
  ['ied', 'y'],
  ['sses', 'ss'],
  ['ches', 'ch'],
  ['shes', 'sh'],
  ['xes', 'x'],
  ['ed', ''],
  ['es', 'e'],
  ['s', ''],
];

/** A stem shorter than this is not cut further: "bus", "use" and "gas" keep their letters. */
const STEM_MIN_CHARS = 3;

/**
 * A light English stemmer: one suffix off (plurals, -ing, -ed, -ment, -ation), then a final
 * "e", so that "create", "creates", "created" and "creation" all become "creat". Words that are
 * not English come back as they are, less those endings.
 */
export function stem(word: string): string {
  let base = word;
  for (const [suffix, replacement] of SUFFIXES) {
    if (!base.endsWith(suffix)) continue;
    const cut = base.slice(0, base.length - suffix.length) + replacement;
    // "ss" and "us" and "is" are no plurals: "access", "status", "analysis".
    if (suffix === 's' && /(ss|us|is)$/.test(base)) break;
    if (cut.length >= STEM_MIN_CHARS) base = cut;
    break;
  }
  if (base.length > STEM_MIN_CHARS && base.endsWith('e')) base = base.slice(0, -1);
  // "running" → "runn": a doubled last consonant left by -ing or -ed is one.
  if (base.length > STEM_MIN_CHARS && /([b-df-hj-np-tv-z])\1$/.test(base) && !/(ss|ll|zz)$/.test(base)) base = base.slice(0, -1);
  return base;
}
