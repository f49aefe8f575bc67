import { CONTENT_TYPE } from '../common/content-blocks.js';
import type { ToolEntry } from '../protocol/contract.js';
import type { Calls } from './calls.js';
import { host } from './host.js';
import {
  ArrayPush,
  JSONParse,
  JSONStringify,
  ObjectFreeze,
  ProxyConstructor,
  SetAdd,
  SetHas,
  StringStartsWith,
  RangeErrorConstructor,
  TypeErrorConstructor,
  blank,
  collection,
  defineValue,
  globalObject,
  newError,
  stringOf,
} from './intrinsics.js';

/** Names a `tools[...]` lookup answers with undefined instead of throwing (await, JSON, inspection). */
export const QUIET_NAMES = collection<string>();
SetAdd(QUIET_NAMES, 'then');
SetAdd(QUIET_NAMES, 'toJSON');
SetAdd(QUIET_NAMES, 'constructor');
SetAdd(QUIET_NAMES, 'valueOf');
SetAdd(QUIET_NAMES, 'toString');

/** 10: hits searchTools returns when the script gives no limit. */
export const SEARCH_DEFAULT_LIMIT = 10;

/** A catalog made ready for a script: what installTools puts on the global object. */
export interface PreparedTools {
  readonly functions: Record<string, (args?: unknown) => Promise<unknown>>;
  readonly declarations: Record<string, string>;
  /** Denied by the server's config: callable by name, so the call rejects with ToolRefused, listed nowhere. */
  readonly denied: Record<string, true>;
  readonly allTools: readonly object[];
}

/**
 * Parses the catalog and makes each tool's function and ALL_TOOLS entry: in a pooled child, while
 * it waits for its script (protocol/contract.ts, `catalog`), so a run's start costs nothing that
 * grows with the catalog. Runs before any of the script's code, so the arrays and literals made
 * here meet a pristine world.
 */
export function prepareTools(toolsJson: string, calls: Calls): PreparedTools {
  const given = JSONParse(toolsJson) as ToolEntry[];
  const functions = blank<Record<string, (args?: unknown) => Promise<unknown>>>();
  const declarations = blank<Record<string, string>>();
  const denied = blank<Record<string, true>>();
  const allTools: object[] = [];
  for (let i = 0; i < given.length; i++) {
    const entry = given[i]!;
    const name = entry.name;
    // A saved skill is there for searchTools (the engine searches it); skills.<name> calls it.
    if (entry.skill === true) continue;
    if (entry.denied === true) {
      denied[name] = true;
      continue;
    }
    functions[name] = (args?: unknown) => calls.call(name, args);
    declarations[name] = entry.declaration;
    ArrayPush(
      allTools,
      ObjectFreeze({
        name,
        description: entry.description,
        inputSchema: entry.inputSchema,
        outputSchema: entry.outputSchema,
      }),
    );
  }
  return { functions: ObjectFreeze(functions), declarations, denied, allTools: ObjectFreeze(allTools) };
}

/**
 * Installs `tools`, `ALL_TOOLS`, `describe` and `searchTools` for the script's prepared catalog,
 * and its unlisted prefixes. Runs before any of the script's code.
 */
export function installTools(prepared: PreparedTools, unlistedJson: string, calls: Calls): void {
  const { functions, declarations, denied, allTools } = prepared;
  const unlisted = JSONParse(unlistedJson) as string[];
  const callable = (key: string): boolean => {
    if (denied[key] === true) return true;
    for (let i = 0; i < unlisted.length; i++) if (StringStartsWith(key, unlisted[i]!)) return true;
    return false;
  };
  const handler = blank<ProxyHandler<object>>();
  handler.get = (target, key) => {
    if (typeof key !== 'string') return undefined;
    const fn = (target as Record<string, unknown>)[key];
    if (fn !== undefined) return fn;
    if (SetHas(QUIET_NAMES, key)) return undefined;
    // Denied by the config, or of an upstream that hasn't listed its tools yet: callable by name,
    // listed nowhere (not even by Object.keys), and the server refuses the call with ToolRefused.
    if (callable(key)) return (args?: unknown) => calls.call(key, args);
    throw newError(
      TypeErrorConstructor,
      `tools[${JSONStringify(key)}] is not a tool.${host.closest(key)} ALL_TOOLS lists every tool.`,
    );
  };
  const tools = new ProxyConstructor(functions, handler);

  const describe = (name: unknown): string => {
    const declaration = typeof name === 'string' ? declarations[name] : undefined;
    if (declaration === undefined) {
      const text = stringOf(name);
      throw newError(TypeErrorConstructor, `describe(${JSONStringify(text)}): not a tool.${host.closest(text)}`);
    }
    // The Content type the declaration names, once: it would cost every tool's entry its length.
    return `${declaration}\n${CONTENT_TYPE}`;
  };
  const searchTools = (query: unknown, limit?: unknown): unknown => {
    const text = query === undefined || query === null ? '' : stringOf(query);
    const max = typeof limit === 'number' && limit === limit ? limit : SEARCH_DEFAULT_LIMIT;
    const answer = host.search(text, max);
    // Hits are a JSON list; anything else is why the query was refused.
    if (answer[0] !== '[') throw newError(RangeErrorConstructor, answer);
    return JSONParse(answer);
  };

  defineValue(globalObject, 'tools', tools);
  defineValue(globalObject, 'ALL_TOOLS', allTools);
  defineValue(globalObject, 'describe', describe);
  defineValue(globalObject, 'searchTools', searchTools);
}
