import type { ToolEntry } from '../../protocol/contract.js';
import { declarationOf } from '../catalog/declaration.js';
import type { CatalogTool } from '../catalog/types.js';

const entries = new WeakMap<CatalogTool, ToolEntry>();

/** The catalog as a script is given it: each tool with its declaration, made once per tool. */
export function toolEntries(catalog: readonly CatalogTool[]): ToolEntry[] {
  return catalog.map((tool) => {
    let entry = entries.get(tool);
    if (entry === undefined) {
      entry = {
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
        declaration: declarationOf(tool),
        ...(tool.allowed ? {} : { denied: true }),
      };
      entries.set(tool, entry);
    }
    return entry;
  });
}
