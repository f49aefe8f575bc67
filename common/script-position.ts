/**
 * Where a script's syntax error is, said in the script's own lines and columns: one rule for the
 * server (errors found while stripping TypeScript) and the engine (errors QuickJS finds). Both
 * wrap the script in a function; an error at the wrapper's closing line means the script ended
 * with something still open, and is reported at the end of the user's last line.
 */

/** The script's file name in stack frames and syntax errors. */
export const SCRIPT_FILE = 'script';

/** `SyntaxError: <message>\n    at script:<line>:<column>`, as QuickJS prints a syntax error. */
export function syntaxErrorAt(message: string, line: number, column: number): string {
  return `SyntaxError: ${message}\n    at ${SCRIPT_FILE}:${line}:${column}`;
}

/** The script ended with a bracket, string, template or expression still open: said at the end of its last line. */
export function endedEarly(code: string): string {
  const lines = code.split('\n');
  const last = lines.length;
  return syntaxErrorAt(
    'the script ended early: a bracket, string, template or expression it opened is never closed',
    last,
    lines[last - 1]!.length + 1,
  );
}

/** The number of lines of a script, as its line numbers run: one more than its newlines. */
export function lineCount(code: string): number {
  let count = 1;
  for (let at = code.indexOf('\n'); at !== -1; at = code.indexOf('\n', at + 1)) count += 1;
  return count;
}
