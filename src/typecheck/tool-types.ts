/**
 * The catalog as TypeScript declarations for the type check: a member of `CodemodeTools`
 * (guest-globals.ts) per callable tool, named by its literal name, its arguments and its
 * structured result typed from its schemas by the catalog's renderer in its loose mode (never
 * stricter than the schema). Each tool's types are named for it (`Input_get_sum`), so a message
 * reads "not assignable to parameter of type 'Input_get_sum'". Made once per catalog.
 */
import { argsRequired, looseTypeOf } from '../catalog/declaration.js';
import type { CatalogTool } from '../catalog/types.js';

/** The declarations of one catalog, and what the check needs to know of its names. */
export interface ToolTypes {
  /** Distinct for each catalog this process has seen: the compiler keeps a project per key (check-program.ts). */
  readonly key: number;
  readonly text: string;
  /** Callable tools, and those the config denies (callable by name, refused when called). */
  readonly names: readonly string[];
  readonly denied: readonly string[];
  /** Each type alias made, with the tool it is of (`Output_get_sum` → `get-sum`). */
  readonly aliases: Readonly<Record<string, string>>;
}

const made = new WeakMap<readonly CatalogTool[], ToolTypes>();
let nextKey = 1;

/** The declarations of `catalog`: the same object for the same catalog array. */
export function toolTypesOf(catalog: readonly CatalogTool[]): ToolTypes {
  let types = made.get(catalog);
  if (types === undefined) {
    types = { key: nextKey++, ...renderToolTypes(catalog) };
    made.set(catalog, types);
  }
  return types;
}

function renderToolTypes(catalog: readonly CatalogTool[]): Omit<ToolTypes, 'key'> {
  const aliases: Record<string, string> = {};
  const members: string[] = [];
  const types: string[] = [];
  const callable = catalog.filter((tool) => tool.allowed);
  for (const tool of callable) {
    const input = aliasFor('Input', tool.name, aliases);
    types.push(`type ${input} = ${looseTypeOf(tool.inputSchema)};`);
    let output = 'any';
    if (tool.outputSchema !== undefined) {
      output = aliasFor('Output', tool.name, aliases);
      types.push(`type ${output} = ${looseTypeOf(tool.outputSchema)};`);
    }
    const mark = argsRequired(tool.inputSchema) ? '' : '?';
    members.push(`  ${JSON.stringify(tool.name)}(args${mark}: ${input}): Promise<ToolResult<${output}>>;`);
  }
  const text = ['interface CodemodeTools {', ...members, '}', ...types, ''].join('\n');
  return {
    text,
    names: callable.map((tool) => tool.name),
    denied: catalog.filter((tool) => !tool.allowed).map((tool) => tool.name),
    aliases,
  };
}

/** `Input_get_sum` for `get-sum`: an identifier, distinct among those made for this catalog. */
function aliasFor(kind: string, name: string, taken: Record<string, string>): string {
  const base = `${kind}_${name.replace(/[^A-Za-z0-9_$]/g, '_')}`;
  let alias = base;
  for (let n = 2; Object.hasOwn(taken, alias); n += 1) alias = `${base}_${n}`;
  taken[alias] = name;
  return alias;
}
