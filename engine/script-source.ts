/** The script's file name in stack frames and syntax errors. */
export const SCRIPT_FILE = 'script';

/** The script is the body of an async function; its first line shares the wrapper's line. */
export const SCRIPT_PREFIX = '(async function () {';
const SCRIPT_SUFFIX = '\n})';

export function wrapScript(code: string): string {
  return SCRIPT_PREFIX + code + SCRIPT_SUFFIX;
}
