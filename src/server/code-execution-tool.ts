/**
 * The one tool this server offers, as `tools/list` shows it: its description names the tools a
 * script can call, so it is rebuilt from the catalog each time it is listed.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { describeCodeExecution } from '../catalog/description.js';
import type { CatalogTool } from '../catalog/types.js';

export const CODE_EXECUTION_TOOL = 'code_execution';

/**
 * Every field optional and no `required`: SessionScripts checks the input itself, so bad input
 * gets our answer saying what is accepted, not a schema error from a client or the SDK.
 */
export const CODE_EXECUTION_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    code: {
      type: 'string',
      description: 'JavaScript, the body of an async function (top-level await; `return x` gives x). Starts a script.',
    },
    action: {
      type: 'string',
      enum: ['run', 'wait', 'stop', 'list'],
      description: 'run (the default when code is given), wait or stop (with script), list',
    },
    script: { type: 'string', description: 'The script id, for wait and stop' },
    yield_ms: {
      type: 'integer',
      minimum: 0,
      description: 'Return by then with the output so far (the script keeps running). Default: the server\'s yieldMs',
    },
  },
} as const satisfies Tool['inputSchema'];

export function codeExecutionTool(catalog: readonly CatalogTool[]): Tool {
  return {
    name: CODE_EXECUTION_TOOL,
    title: 'Run code against your MCP tools',
    description: describeCodeExecution(catalog),
    inputSchema: CODE_EXECUTION_INPUT_SCHEMA,
  };
}
