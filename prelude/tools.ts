import type { Calls } from './calls';
import { closestHint } from './closest-names';
import { searchTools } from './search-tools';
import { jsonStringify, jsonParse } from './intrinsics';

interface ToolEntry {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: unknown;
  readonly outputSchema?: unknown;
  readonly declaration: string;
  readonly denied?: boolean;
}

/** Names a `tools[...]` lookup answers with undefined instead of throwing (await, JSON, inspection). */
const QUIET_NAMES = new Set(['then', 'toJSON', 'constructor', 'valueOf', 'toString']);

/** Installs `tools`, `ALL_TOOLS`, `describe` and `searchTools` for this script's catalog. */
export function installTools(
  global: Record<string, unknown>,
  toolsJson: string,
  unlisted: readonly string[],
  calls: Calls,
): void {
  const given = jsonParse(toolsJson) as ToolEntry[];
  // A denied tool stays callable by name, so its call is refused (ToolRefused), but is listed nowhere.
  const entries = given.filter((entry) => !entry.denied);
  const byName = new Map(entries.map((entry) => [entry.name, entry]));
  const names = entries.map((entry) => entry.name);

  const functions: Record<string, (args?: unknown) => Promise<unknown>> = Object.create(null);
  for (const name of names) {
    functions[name] = (args?: unknown) => calls.call(name, args);
  }
  const denied = new Set(given.filter((entry) => entry.denied).map((entry) => entry.name));
  const tools = new Proxy(Object.freeze(functions), {
    get(target, key) {
      if (typeof key !== 'string') return undefined;
      const fn = target[key];
      if (fn !== undefined) return fn;
      if (QUIET_NAMES.has(key)) return undefined;
      // Denied by the config, or of an upstream that hasn't listed its tools yet: callable by name,
      // listed nowhere (not even by Object.keys), and the server refuses the call with ToolRefused.
      if (denied.has(key) || unlisted.some((prefix) => key.startsWith(prefix))) return (args?: unknown) => calls.call(key, args);
      throw new TypeError(`tools[${jsonStringify(key)}] is not a tool.${closestHint(key, names)} ALL_TOOLS lists every tool.`);
    },
  });

  const allTools = Object.freeze(
    entries.map((entry) =>
      Object.freeze({
        name: entry.name,
        description: entry.description,
        inputSchema: entry.inputSchema,
        outputSchema: entry.outputSchema,
      }),
    ),
  );

  const describe = (name: unknown): string => {
    const entry = typeof name === 'string' ? byName.get(name) : undefined;
    if (entry === undefined) {
      throw new TypeError(`describe(${jsonStringify(name)}): not a tool.${closestHint(String(name), names)}`);
    }
    return entry.declaration;
  };

  const define = (name: string, value: unknown) =>
    Object.defineProperty(global, name, { value, writable: true, configurable: true });
  define('tools', tools);
  define('ALL_TOOLS', allTools);
  define('describe', describe);
  define('searchTools', (query: unknown, limit?: unknown) =>
    searchTools(allTools, String(query ?? ''), typeof limit === 'number' ? limit : undefined),
  );
}
