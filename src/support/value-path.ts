/**
 * A path into a parsed value (a config file, a message's params, a tool's arguments): reading the
 * value there, and writing the path as a person would, `mcpServers.github.args[2]`.
 */
import { quoteInput } from './echo.js';

/** A key written as it is, after a dot; any other is quoted in brackets, `arguments["a b"]`. */
const PLAIN_KEY = /^[A-Za-z0-9_$-]{1,64}$/;

/** `mcpServers.github.args[2]`, `params.arguments["a b"]`; `root` names the value itself (an empty path). */
export function formatPath(path: readonly PropertyKey[], root = '(top level)'): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && PLAIN_KEY.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${quoteInput(String(segment))}]`;
  }
  return out === '' ? root : out;
}

/** The value at `path` inside `value`, by its own keys only; undefined where the path leaves it. */
export function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const segment of path) {
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, segment)) return undefined;
    at = (at as Record<PropertyKey, unknown>)[segment];
  }
  return at;
}
