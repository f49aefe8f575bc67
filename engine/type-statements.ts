/**
 * What stripping types must not change, read from the stripper's tokens: where a statement that
 * is only types is removed, the statement before it must still end there (JavaScript's automatic
 * semicolons would otherwise join it to the next: `const a = f` and, after an interface,
 * `(g)()` would call `f`); a namespace, whose values stripping would drop, is refused; and an
 * enum member whose name goes over lines is refused, as the stripped enum repeats each name and
 * would move every line after it.
 */
import { lineCount, syntaxErrorAt } from '../common/script-position.js';

export interface TypeToken {
  readonly start: number;
  readonly end: number;
  readonly isType: boolean;
}

/** A place in the script, as its line and column. */
interface Place {
  readonly line: number;
  readonly column: number;
}

/** The words that begin a statement the stripper removes whole. */
const TYPE_STATEMENT_STARTS = new Set(['interface', 'type', 'declare', 'import', 'export', 'abstract', 'function']);

const NAMESPACE_WORDS = new Set(['namespace', 'module']);

const LINE_BREAK = /[\n\r\u2028\u2029]/;

export type TypeStatements =
  { readonly semicolons: readonly number[] } | { readonly refused: { readonly at: number; readonly message: string } };

/**
 * Reads the tokens of `source` (the wrapped script): the offsets where a `;` must stand in place
 * of a removed statement's first character, or the first construct to refuse and its offset.
 */
export function readTypeStatements(source: string, tokens: readonly TypeToken[]): TypeStatements {
  const semicolons: number[] = [];
  const text = (index: number): string => {
    const token = tokens[index];
    return token === undefined ? '' : source.slice(token.start, token.end);
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const word = text(i);
    if (word === 'enum') {
      const multiline = enumTokenOverLines(tokens, i, source);
      if (multiline !== null) return { refused: { at: multiline, message: ENUM_OVER_LINES } };
    }
    if (!token.isType) continue;
    if (NAMESPACE_WORDS.has(word) && !isAmbient(tokens, i, text) && startsName(tokens, i, source, text)) {
      return {
        refused: {
          at: token.start,
          message: `TypeScript namespaces are not supported in scripts (stripping types would drop its values): use an object instead`,
        },
      };
    }
    if (!TYPE_STATEMENT_STARTS.has(word) || !startsName(tokens, i, source, text) || i === 0) continue;
    const previous = tokens[i - 1]!;
    const before = text(i - 1);
    // A `;` or `{` the JavaScript keeps already ends what is before; one that is removed ends nothing.
    if ((before === ';' || before === '{') && !previous.isType) continue;
    const broken = LINE_BREAK.test(source.slice(previous.end, token.start));
    if (before === '}' || broken || previous.isType) {
      semicolons.push(token.start);
      continue;
    }
    return {
      refused: {
        at: token.start,
        message: `"${word}" here continues the statement before it, on the same line: end that statement with ";"`,
      },
    };
  }
  return { semicolons };
}

const ENUM_OVER_LINES =
  'an enum member whose name goes over more than one line (a line continuation in it) is not supported in scripts: write the name on one line';

/** A namespace inside a declaration (`declare namespace`, or within a declared block) has no values to lose. */
function isAmbient(tokens: readonly TypeToken[], index: number, text: (index: number) => string): boolean {
  let previous = index - 1;
  if (text(previous) === 'export') previous--;
  const word = text(previous);
  return word === 'declare' || (word === '{' && tokens[previous]!.isType);
}

/** The word is a keyword here, not a name: a name or a string follows it on its line (`type X`, `namespace N`, `module "m"`). */
function startsName(tokens: readonly TypeToken[], index: number, source: string, text: (index: number) => string): boolean {
  const next = tokens[index + 1];
  if (next === undefined || LINE_BREAK.test(source.slice(tokens[index]!.end, next.start))) return false;
  return /^[\p{L}_$"']/u.test(text(index + 1)) || text(index + 1).startsWith('\\');
}

/** The start of the first member name of the enum at `index` that spans lines (the stripped enum repeats each name), or null. */
function enumTokenOverLines(tokens: readonly TypeToken[], index: number, source: string): number | null {
  let depth = 0;
  for (let i = index + 1; i < tokens.length; i++) {
    const token = tokens[i]!;
    const text = source.slice(token.start, token.end);
    if (/^["']/.test(text) && LINE_BREAK.test(text)) return token.start;
    if (text === '{') depth++;
    else if (text === '}' && --depth <= 0) return null;
  }
  return null;
}

/** The script's line and column of `offset` into it. */
function placeOf(code: string, offset: number): Place {
  const before = code.slice(0, Math.max(0, offset));
  return { line: lineCount(before), column: before.length - before.lastIndexOf('\n') };
}

export function refusal(code: string, offset: number, message: string): string {
  const { line, column } = placeOf(code, offset);
  return syntaxErrorAt(message, line, column);
}
