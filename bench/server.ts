import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { PACKAGE_ROOT } from '../src/isolate/engine-path.js';

export const TIMING_UPSTREAM = join(PACKAGE_ROOT, 'bench', 'fixtures', 'timing-upstream.mjs');
const BIN = join(PACKAGE_ROOT, 'bin', 'codemode-mcp.js');

export interface Connected {
  readonly client: Client;
  readonly pid: number;
  close(): Promise<void>;
}

async function connect(command: string, args: string[]): Promise<Connected> {
  const transport = new StdioClientTransport({ command, args, stderr: 'ignore' });
  const client = new Client({ name: 'codemode-bench', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid!, close: () => client.close() };
}

/** codemode-mcp in front of the timing upstream, with the given flags. */
export function startServer(flags: string[]): Promise<Connected> {
  return connect(process.execPath, [BIN, ...flags, '--', process.execPath, TIMING_UPSTREAM]);
}

/** An SDK client connected straight to the timing upstream: the baseline for calls. */
export function startDirect(): Promise<Connected> {
  return connect(process.execPath, [TIMING_UPSTREAM]);
}

/** Runs a script to its ending and returns its value: from structuredContent while small, else from the text's value line. */
export async function runCode(server: Connected, code: string): Promise<unknown> {
  const result = await server.client.callTool({ name: 'code_execution', arguments: { code, yield_ms: 600_000 } });
  const structured = result.structuredContent as { status?: string; value?: unknown; valueChars?: number } | undefined;
  if (structured?.status !== 'finished') {
    throw new Error(`bench script did not finish: ${JSON.stringify(result.content).slice(0, 500)}`);
  }
  if (structured.valueChars === undefined) return structured.value;
  const [first] = result.content as Array<{ type: string; text?: string }>;
  const line = (first?.text ?? '').split('\n').find((candidate) => candidate.startsWith('value: '));
  return line === undefined ? undefined : JSON.parse(line.slice('value: '.length));
}
