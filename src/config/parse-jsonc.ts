/**
 * Config text as people write it: JSON, or JSON with comments and trailing commas (VS Code's
 * `mcp.json` is JSONC), parsed by Microsoft's `jsonc-parser`. A mistake is reported with its line
 * and column. The value is built here from the parser's tree, with every key an own property, so
 * a key named `__proto__` is a key like any other.
 */
import { parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';

export type JsoncResult =
  { readonly value: unknown } | { readonly line: number; readonly column: number; readonly reason: string };

/** What each of the parser's error codes means, said for someone editing the file. */
const REASONS: Readonly<Record<string, string>> = {
  InvalidSymbol: 'unexpected character (strings take double quotes; true, false and null are lowercase)',
  InvalidNumberFormat: 'not a number as JSON writes one',
  PropertyNameExpected: 'expected a property name in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected ":" after a property name',
  CommaExpected: 'expected "," between two values (a comma may be missing)',
  CloseBraceExpected: 'expected "}" (an object is never closed, or a comma is missing)',
  CloseBracketExpected: 'expected "]" (a list is never closed, or a comma is missing)',
  EndOfFileExpected: 'unexpected text after the end of the value',
  InvalidCommentToken: 'a comment that is not // or /* */',
  UnexpectedEndOfComment: 'a /* comment is never closed',
  UnexpectedEndOfString: 'a string is never closed',
  UnexpectedEndOfNumber: 'a number is cut short',
  InvalidUnicode: 'a \\u escape needs four hex digits',
  InvalidEscapeCharacter: 'an escape JSON does not know (use \\\\ for a backslash)',
  InvalidCharacter: 'a control character inside a string (write it escaped, as \\n or \\t)',
};

export function parseJsonc(text: string): JsoncResult {
  const errors: ParseError[] = [];
  let tree: Node | undefined;
  try {
    tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  } catch (error) {
    // The parser recurses once per level of nesting.
    if (!(error instanceof RangeError)) throw error;
    return { line: 1, column: 1, reason: 'nested deeper than a config file can be (thousands of levels)' };
  }
  const first = errors[0];
  if (first !== undefined || tree === undefined) {
    const offset = first?.offset ?? text.length;
    return {
      ...lineAndColumn(text, offset),
      reason:
        first === undefined
          ? 'expected a value'
          : (REASONS[printParseErrorCode(first.error)] ?? printParseErrorCode(first.error)),
    };
  }
  return { value: valueOf(tree) };
}

/** 1-based line and column (in UTF-16 code units) of an offset. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lastNewline = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: offset - lastNewline };
}

/** The tree's value, iteratively: a deeply nested file can't overflow the stack. */
function valueOf(root: Node): unknown {
  const make = (node: Node): unknown => (node.type === 'object' ? {} : node.type === 'array' ? [] : node.value);
  const top = make(root);
  const stack: Array<[Node, unknown]> = [[root, top]];
  while (stack.length > 0) {
    const [node, target] = stack.pop()!;
    if (node.type === 'array') {
      const list = target as unknown[];
      for (const child of node.children ?? []) {
        const value = make(child);
        list.push(value);
        if (child.type === 'object' || child.type === 'array') stack.push([child, value]);
      }
    } else if (node.type === 'object') {
      for (const property of node.children ?? []) {
        const [key, child] = property.children ?? [];
        if (key === undefined || child === undefined) continue;
        const value = make(child);
        Object.defineProperty(target, key.value as string, { value, writable: true, enumerable: true, configurable: true });
        if (child.type === 'object' || child.type === 'array') stack.push([child, value]);
      }
    }
  }
  return top;
}
