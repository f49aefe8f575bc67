/**
 * The one tool this server offers, as `tools/list` shows it: its description names the tools a
 * script can call, so it is rebuilt from the catalog each time it is listed.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { describeCodeExecution, type DescriptionOptions, type SkillLine } from '../../catalog/description.js';
import type { Catalog } from '../../catalog/types.js';
import { codeExecutionInputSchema } from './input.js';

export const CODE_EXECUTION_TOOL = 'code_execution';

/** `skills`: the saved skills, when the server serves them to scripts (catalog/description.ts). */
export function codeExecutionTool(
  catalog: Catalog,
  options: DescriptionOptions & { readonly maxYieldMs: number },
  skills?: readonly SkillLine[],
): Tool {
  return {
    name: CODE_EXECUTION_TOOL,
    title: 'Run code against your MCP tools',
    description: describeCodeExecution(catalog, options, skills),
    inputSchema: codeExecutionInputSchema(options.maxYieldMs),
  };
}
