/** The script is the body of an async function; its first line shares the wrapper's line. */
export const SCRIPT_PREFIX = '(async function () {';
const SCRIPT_SUFFIX = '\n})';

export function wrapScript(code: string): string {
  return SCRIPT_PREFIX + code + SCRIPT_SUFFIX;
}
