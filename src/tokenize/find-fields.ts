/**
 * Configured fields in JSON-looking text: `"name": "Ada Lovelace"` and `"phone": 4155550143`, the
 * key in quotes whatever its case, and the same one level down, as JSON text inside a JSON
 * string (`\"name\":\"Ada\"`). The value is tokenized whole: a string's contents, or a number
 * (its token then written in quotes). A value that is an object or a list is left to the
 * detectors here; in a structured value, everything under the field is tokenized (tokenize-value.ts).
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

/** `fields`: lower-cased field name → its tokens' label; `isToken`: a value already a token, left as it is. */
export function fieldFinder(fields: ReadonlyMap<string, string>, isToken: (text: string) => boolean): Finder {
  const names = [...fields.keys()].map((name) => name.replace(REGEXP_SPECIAL, '\\$&')).join('|');
  // "key": "contents" or "key": number.
  const plain = new RegExp(String.raw`"(${names})"\s*:\s*(?:"((?:[^"\\\n]|\\.)*)"|${NUMBER})`, 'gi');
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
      }
    }
  };
  return (text, found) => {
    if (!text.includes('"')) return;
    scan(text, plain, '"', decodeContents, found);
    if (text.includes('\\"')) scan(text, escaped, '\\"', (contents) => decodeContents(decodeContents(contents)), found);
  };
}
