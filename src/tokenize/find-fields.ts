/**
 * Configured fields in JSON-looking text: `"name": "Ada Lovelace"` and `"phone": 4155550143`, the
 * key in quotes whatever its case, and the same one level down, as JSON text inside a JSON
 * string (`\"name\":\"Ada\"`). The value is tokenized whole: a string's contents, or a number
 * (its token then written in quotes). A value that is an object or a list has every string and
 * number in it tokenized, as in a structured value (tokenize-value.ts); one level down, such a
 * value is left to the detectors.
 */
import type { Finder, Found } from './found.js';
import type { TokenValue } from './token-text.js';

const REGEXP_SPECIAL = /[\\^$.*+?()[\]{}|/]/g;
const NUMBER = String.raw`(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)`;

/** A JSON number's text as the value it is, or the text itself where a double would change it. */
function numberValue(text: string): TokenValue {
  const value = Number(text);
  return String(value) === text ? value : text;
}

/** A JSON string literal's contents as the string they encode (left as written if they are not JSON). */
function decodeContents(contents: string): string {
  try {
    return JSON.parse(`"${contents}"`) as string;
  } catch {
    return contents;
  }
}

/** A JSON number where the walk stands. */
const NUMBER_AT = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

/** Where the JSON string literal opening at `at` (its `"`) ends: just past its closing quote. */
function stringEnd(text: string, at: number): number {
  let i = at + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

/**
 * Every string and number value inside the object or list that opens at `at`, as a field's
 * values (as a structured value's are: keys left to the detectors); returns where the structure
 * ends. Text that is not JSON ends the walk where it stops making sense.
 */
function findNested(text: string, at: number, label: string, isToken: (text: string) => boolean, found: Found[]): number {
  let depth = 0;
  let i = at;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      if (--depth === 0) return i + 1;
    } else if (c === 34) {
      const end = stringEnd(text, i);
      let next = end;
      while (next < text.length && isSpace(text.charCodeAt(next))) next++;
      const value = decodeContents(text.slice(i + 1, end - 1));
      if (text[next] !== ':' && value !== '' && !isToken(value)) found.push({ start: i + 1, end: end - 1, label, value });
      i = end;
      continue;
    } else if (c === 45 || isDigit(c)) {
      NUMBER_AT.lastIndex = i;
      const number = NUMBER_AT.exec(text)?.[0];
      if (number !== undefined) {
        found.push({ start: i, end: i + number.length, label, value: numberValue(number), quote: '"' });
        i += number.length;
        continue;
      }
    }
    i++;
  }
  return i;
}

/** `fields`: lower-cased field name → its tokens' label; `isToken`: a value already a token, left as it is. */
export function fieldFinder(fields: ReadonlyMap<string, string>, isToken: (text: string) => boolean): Finder {
  const names = [...fields.keys()].map((name) => name.replace(REGEXP_SPECIAL, '\\$&')).join('|');
  // "key": "contents", "key": number, or "key": followed by an object or a list.
  const plain = new RegExp(String.raw`"(${names})"\s*:\s*(?:"((?:[^"\\\n]|\\.)*)"|${NUMBER}|(?=[{[]))`, 'gi');
  // \"key\": \"contents\" or \"key\": number, inside a JSON string: an inner escape is \\ and a pair.
  const escaped = new RegExp(String.raw`\\"(${names})\\"\s*:\s*(?:\\"((?:[^"\\]|\\\\\\.|\\[^"\\])*)\\"|${NUMBER})`, 'gi');
  const scan = (text: string, pattern: RegExp, quote: string, decode: (contents: string) => string, found: Found[]) => {
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const [whole, name, contents, number] = match;
      const label = fields.get(name!.toLowerCase())!;
      const end = match.index + whole.length;
      if (contents !== undefined) {
        const value = decode(contents);
        if (value === '' || isToken(value)) continue;
        const start = end - quote.length - contents.length;
        found.push({ start, end: start + contents.length, label, value });
      } else if (number !== undefined) {
        found.push({ start: end - number.length, end, label, value: numberValue(number), quote });
      } else if (quote === '"') {
        pattern.lastIndex = findNested(text, end, label, isToken, found);
      }
    }
  };
  return (text, found) => {
    if (!text.includes('"')) return;
    scan(text, plain, '"', decodeContents, found);
    if (text.includes('\\"')) scan(text, escaped, '\\"', (contents) => decodeContents(decodeContents(contents)), found);
  };
}
