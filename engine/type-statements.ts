/**
 * What stripping types must not change, read from the stripper's tokens and what it made of them.
 * Stripping must never join two statements that the author's text kept apart: where a statement
 * or a class member that is only types is removed (an interface, `import type`, an abstract
 * member, an overload, ...), or a type ends a line (`hook as Row`, `let x: Row`), JavaScript's
 * automatic semicolons could run the line before into the next (`const keep = hook` and then
 * `(g)()` would call `hook`), so a `;` stands in the removed text's place. Before stripping: a
 * namespace, whose values stripping would drop, is refused; and an enum member whose name goes over
 * lines is refused, as the stripped enum repeats each name and would move every line after it.
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

/** Words that begin removed text that goes on an expression or a class heading, never a statement of its own. */
const CONTINUING_WORDS = new Set(['as', 'satisfies', 'implements']);

/** Words that modify the declaration after them (`export import X = Y`): JavaScript's own error says what is wrong there. */
const MODIFIERS = new Set(['export', 'declare', 'default']);

/** Type operators after an expression: a line they end was ended there, whatever the next line starts with. */
const EXPRESSION_TYPE_WORDS = new Set(['as', 'satisfies']);

/** What a line may start with that JavaScript would read as going on with the line before. */
const CONTINUES_THE_LINE_BEFORE = /^[([`]/;

const NAMESPACE_WORDS = new Set(['namespace', 'module']);

const LINE_BREAK = /[\n\r\u2028\u2029]/;

/** A word: a name or a keyword. */
const WORD = /^[\p{L}\p{Nl}_$\\]/u;

export type Refused = { readonly refused: { readonly at: number; readonly message: string } };

/**
 * Reads the tokens of `source` (the wrapped script) before it is stripped: the first construct to
 * refuse and its offset, or nothing.
 */
export function refusedConstruct(source: string, tokens: readonly TypeToken[]): Refused | undefined {
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
    if (word === 'export' && text(i + 1) === '=') {
      // Sucrase would make it `module.exports = ...`, which a script has no module to give.
      return { refused: { at: token.start, message: '"export =" has no place in a script: return the value instead' } };
    }
    if (token.isType && NAMESPACE_WORDS.has(word) && !isAmbient(tokens, i, text) && startsName(tokens, i, source, text)) {
      return {
        refused: {
          at: token.start,
          message: `TypeScript namespaces are not supported in scripts (stripping types would drop its values): use an object instead`,
        },
      };
    }
  }
  return undefined;
}

/**
 * Where a `;` must stand in place of the first character of removed text, so that stripping joins
 * no statements; or why the text can't be stripped as written. `lines`: the stripped source, each
 * line's tokens at the columns they had (strip-types.ts), so what was removed is blank there.
 *
 * Removed text runs from a removed token to the next kept one. It separates what is before it
 * (`before`, the last kept token) from what follows (`after`) when:
 * - it begins a statement or a class member (a word or `[` on a line after `before`, or a word
 *   that starts a type-only statement after a `}`), and `before` could end one: then whatever
 *   follows, the removed text ended the statement before it;
 * - it is a type after an expression or a declaration (`as Row`, `satisfies Row`, `: Row`) that
 *   ends its line, and the next line starts with `(`, `[` or a template: TypeScript ends a
 *   statement there (a type goes on with none of them across a line), and JavaScript would not.
 * Removed text that goes on an expression (`<T>` type arguments, a non-null `!`) leaves it going
 * on in JavaScript as in TypeScript, and needs nothing.
 */
export function statementBreaks(
  source: string,
  tokens: readonly TypeToken[],
  lines: readonly string[],
): { readonly semicolons: readonly number[] } | Refused {
  const blankAt = blankness(source, lines);
  const text = (index: number): string => {
    const token = tokens[index];
    return token === undefined ? '' : source.slice(token.start, token.end);
  };
  // Sucrase marks most of what it removes as types; what else it drops (an elided import, an
  // abstract field, a modifier) is a word left blank.
  const removed = (index: number): boolean => {
    const token = tokens[index]!;
    return token.isType || (WORD.test(text(index)) && blankAt(token.start));
  };
  const semicolons: number[] = [];
  for (let i = 1; i < tokens.length; i++) {
    if (!removed(i) || removed(i - 1)) continue;
    let last = i;
    while (last + 1 < tokens.length && removed(last + 1)) last++;
    const first = tokens[i]!;
    const word = text(i);
    const before = text(i - 1);
    const after = tokens[last + 1];
    const brokenBefore = LINE_BREAK.test(source.slice(tokens[i - 1]!.end, first.start));
    const brokenAfter = after !== undefined && LINE_BREAK.test(source.slice(tokens[last]!.end, after.start));
    const startsStatement = TYPE_STATEMENT_STARTS.has(word) && startsDeclaration(tokens, i, source, text);
    i = last;
    if (!endsExpression(before)) continue;
    if ((WORD.test(word) && !CONTINUING_WORDS.has(word)) || word === '[') {
      if (brokenBefore || (before === '}' && startsStatement)) semicolons.push(first.start);
      else if (startsStatement && !MODIFIERS.has(before)) {
        return {
          refused: {
            at: first.start,
            message: `"${word}" here continues the statement before it, on the same line: end that statement with ";"`,
          },
        };
      }
      continue;
    }
    const endsLine = brokenAfter && CONTINUES_THE_LINE_BEFORE.test(text(last + 1));
    if (endsLine && (EXPRESSION_TYPE_WORDS.has(word) || isAnnotation(tokens, i, text))) semicolons.push(first.start);
  }
  return { semicolons };
}

/** Whether a statement may end with this token: a name, a literal, a closing bracket; not an operator or an opening one. */
function endsExpression(token: string): boolean {
  if (/^[\p{L}\p{Nl}\p{N}_$\\#'"`]/u.test(token)) return true;
  // A regular expression literal (not a division).
  if (token.length > 1 && token.startsWith('/') && token !== '/=') return true;
  return token === ')' || token === ']' || token === '}' || token === '++' || token === '--';
}

/** A declaration's or a member's type: `: T`, `?: T`, `!: T` (a definite assignment), not a non-null `!` alone. */
function isAnnotation(tokens: readonly TypeToken[], index: number, text: (index: number) => string): boolean {
  const word = text(index);
  if (word === ':') return true;
  return (word === '?' || word === '!') && text(index + 1) === ':' && tokens[index + 1]!.isType;
}

/** Whether the stripped source is blank at an offset of the source (the two have the same lines). */
function blankness(source: string, lines: readonly string[]): (offset: number) => boolean {
  const starts = [0];
  for (let at = source.indexOf('\n'); at !== -1; at = source.indexOf('\n', at + 1)) starts.push(at + 1);
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    const char = lines[low]?.[offset - starts[low]!];
    return char === undefined || char === ' ';
  };
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

/** As startsName, and an import's or export's `{` or `*` too (`import { type Row }`, `export * from`). */
function startsDeclaration(
  tokens: readonly TypeToken[],
  index: number,
  source: string,
  text: (index: number) => string,
): boolean {
  if (startsName(tokens, index, source, text)) return true;
  const word = text(index);
  return (word === 'import' || word === 'export') && (text(index + 1) === '{' || text(index + 1) === '*');
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
