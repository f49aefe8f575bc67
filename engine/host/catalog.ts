import { closestHint } from '../../common/closest-names.js';
import { searchQueryProblem, searchTools, type SearchableTool } from '../../common/search-tools.js';
import type { ToolEntry } from '../../protocol/contract.js';

/** `search` and `closest`, over the catalog as the engine searches it for the script: the tools it may list. */
export class ScriptCatalog {
  private tools: readonly SearchableTool[] = [];
  private names: readonly string[] = [];

  /**
   * The catalog's tools less the denied ones, and the saved skills, each found as
   * `skills["<name>"]`, the way a script calls it; a later catalog replaces it. Only tools are
   * offered as the closest names of a tool.
   */
  replace(toolsJson: string): void {
    const entries = (JSON.parse(toolsJson) as ToolEntry[]).filter((tool) => tool.denied !== true);
    this.tools = entries.map((entry) =>
      entry.skill === true ? { ...entry, name: `skills[${JSON.stringify(entry.name)}]` } : entry,
    );
    this.names = entries.filter((entry) => entry.skill !== true).map((tool) => tool.name);
  }

  /** The hits as JSON text; for a query past its bounds, what the prelude throws (not JSON). */
  search(query: string, limit: number): string {
    return searchQueryProblem(query) ?? JSON.stringify(searchTools(this.tools, query, limit));
  }

  closest(name: string): string {
    return closestHint(name, this.names);
  }
}
