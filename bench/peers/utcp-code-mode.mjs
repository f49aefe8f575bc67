// UTCP code mode (@utcp/code-mode) as an MCP server, for bench/peers.ts: one tool, call_tool_chain,
// as UTCP's own MCP front (code-mode-mcp, not published on npm) serves it: the code runs in a new
// isolated-vm isolate per call, and the upstream's tools are `manual.tool(args)` functions in it.
// The upstream is the command line in UPSTREAM (a JSON array), registered as the manual `up`, so
// its `mark` tool is `up.timing_mark({})`.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import '@utcp/mcp';
import { CodeModeUtcpClient } from '@utcp/code-mode';
import { z } from 'zod';

const [command, ...args] = JSON.parse(process.env.UPSTREAM ?? 'null') ?? [];
if (command === undefined) throw new Error('UPSTREAM must be the upstream command line as a JSON array');
const client = await CodeModeUtcpClient.create(process.cwd(), {});
await client.registerManual({
  name: 'up',
  call_template_type: 'mcp',
  config: { mcpServers: { timing: { transport: 'stdio', command, args } } },
});

const server = new McpServer({ name: 'utcp-code-mode', version: '1.2.12' });
server.registerTool(
  'call_tool_chain',
  {
    description: 'Runs TypeScript code with the registered tools as functions (manual.tool(args)).',
    inputSchema: { code: z.string(), timeout: z.number().optional() },
  },
  async ({ code, timeout }) => {
    // callToolChain reports a failed script in its logs, with a null result: passed on as an error.
    const { result, logs } = await client.callToolChain(code, timeout ?? 30_000);
    const failed = logs.find((line) => line.startsWith('[ERROR] Code execution failed'));
    return {
      ...(failed === undefined ? {} : { isError: true }),
      content: [{ type: 'text', text: JSON.stringify({ success: failed === undefined, nonMcpContentResults: result, logs }) }],
    };
  },
);
await server.connect(new StdioServerTransport());
