/**
 * The `expose` setting: upstream tools offered beside `code_execution`, each listed with its own
 * schemas and annotations and callable directly. Only allowed tools are exposed; a pattern that
 * matches a denied tool, or no tool at all, is said once in the log.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import type { CatalogTool } from '../catalog/types.js';
import { globToRegExp } from '../config/tool-policy.js';
import { CODE_EXECUTION_TOOL } from './code-execution/tool.js';

/** The catalog's allowed tools whose script names match one of the globs, in catalog order. */
export function exposedTools(catalog: readonly CatalogTool[], globs: readonly string[]): CatalogTool[] {
  if (globs.length === 0) return [];
  const patterns = globs.map(globToRegExp);
  return catalog.filter((tool) => tool.allowed && tool.name !== CODE_EXECUTION_TOOL && patterns.some((re) => re.test(tool.name)));
}

/** Log lines for what the globs ask and can't have: denied tools, a tool named code_execution, globs matching nothing. */
export function exposeProblems(catalog: readonly CatalogTool[], globs: readonly string[]): string[] {
  const problems: string[] = [];
  for (const glob of globs) {
    const re = globToRegExp(glob);
    const matched = catalog.filter((tool) => re.test(tool.name));
    for (const tool of matched) {
      if (!tool.allowed) {
        problems.push(
          `expose "${glob}" matches "${tool.name}", which the config denies (tool "${tool.upstreamName}" of upstream "${tool.server}"); it is not exposed`,
        );
      } else if (tool.name === CODE_EXECUTION_TOOL) {
        problems.push(
          `expose "${glob}" matches an upstream tool named "${CODE_EXECUTION_TOOL}", which is ours; it is not exposed`,
        );
      }
    }
    if (matched.length === 0 && catalog.length > 0) problems.push(`expose "${glob}" matches no tool`);
  }
  return problems;
}

/**
 * A tool as tools/list shows it, exposed: the upstream's own schemas, title and annotations under
 * the script name. Not its task support: the 2026-07-28 revision lists none (a client learns a
 * call is a task from its answer), and a 2025 client would ask for the 2025 tasks, not served here.
 */
export function listedTool(tool: CatalogTool): Tool {
  return {
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
  };
}

/** A direct call that failed in our hands (refused, lost, too large, timed out), as a tool result the model reads. */
export function failedCall(error: Error): CallToolResult {
  return { content: [{ type: 'text', text: error.message }], isError: true };
}
