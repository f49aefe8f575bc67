import type { ToolEntry } from '../../protocol/contract.js';

/** A script's tools as the server checks its calls (their names) and as its child is given them (JSON text). */
export interface ScriptTools {
  readonly names: ReadonlySet<string>;
  readonly json: string;
}

const made = new WeakMap<readonly ToolEntry[], ScriptTools>();

/**
 * Made once per list of tools: a catalog's list is the same array from one run to the next
 * (src/scripts/tool-entries.ts), so a run serializes nothing that grows with the catalog, and a
 * pooled child sent the same text ahead (ScriptChild.offerCatalog) is not sent it again.
 */
export function scriptTools(tools: readonly ToolEntry[]): ScriptTools {
  let known = made.get(tools);
  if (known === undefined) {
    // A saved skill's entry is for searchTools only: its name is no tool the child may call.
    const names = new Set(tools.filter((tool) => tool.skill !== true).map((tool) => tool.name));
    known = { names, json: JSON.stringify(tools) };
    made.set(tools, known);
  }
  return known;
}
