import type { ToolEntry } from '../../protocol/contract.js';
import { declarationOf } from '../catalog/declaration.js';
import type { CatalogTool } from '../catalog/types.js';

const entries = new WeakMap<CatalogTool, ToolEntry>();
const lists = new WeakMap<readonly CatalogTool[], readonly ToolEntry[]>();

/**
 * The catalog as a script is given it: each tool with its declaration, made once per tool; the
 * same array for the same catalog, so what is made of it once (src/script-host/script-tools.ts) serves
 * every run until the catalog changes.
 */
export function toolEntries(catalog: readonly CatalogTool[]): readonly ToolEntry[] {
  let list = lists.get(catalog);
  if (list === undefined) {
    list = catalog.map(entryOf);
    lists.set(catalog, list);
  }
  return list;
}

function entryOf(tool: CatalogTool): ToolEntry {
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
}

/** A saved skill as searchTools finds it: its name, description and input schema. */
export interface SkillEntrySource {
  readonly name: string;
  readonly description: string;
  readonly inputSchema?: unknown;
}

const withSkills = new WeakMap<readonly ToolEntry[], { skills: readonly SkillEntrySource[]; list: readonly ToolEntry[] }>();

/**
 * The tools, then the saved skills as entries searchTools finds (`skill: true`): the same array
 * while neither list changes, so scriptTools and a pooled child's catalog are made once for it.
 */
export function entriesWithSkills(tools: readonly ToolEntry[], skills: readonly SkillEntrySource[]): readonly ToolEntry[] {
  if (skills.length === 0) return tools;
  const known = withSkills.get(tools);
  if (known !== undefined && known.skills === skills) return known.list;
  const list = [
    ...tools,
    ...skills.map((skill) => ({
      name: skill.name,
      description: skill.description,
      inputSchema: skill.inputSchema ?? { type: 'object' },
      declaration: '',
      skill: true,
    })),
  ];
  withSkills.set(tools, { skills, list });
  return list;
}
