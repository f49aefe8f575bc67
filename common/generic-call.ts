/**
 * `f<T>(x)` and ``f<T>`x` `` are JavaScript (two comparisons) as well as TypeScript (a generic
 * call), and the script means the TypeScript: a `>` before a `(`, a backtick or a comment, with a
 * `<` somewhere before it, sends the script through the stripper even though it compiles as
 * JavaScript (engine/script-run.ts), and the type check (src/typecheck/) reads it as TypeScript.
 * `=>`, `>=`, `>>` and `->` are not such a `>`.
 */
const GENERIC_CALL_CLOSE = /(?<![=\->])>\s*(?:[(`]|\/[*/])/;

export function mayMeanOtherInTypeScript(code: string): boolean {
  const open = code.indexOf('<');
  return open !== -1 && GENERIC_CALL_CLOSE.test(code.slice(open));
}
