import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { PACKAGE_ROOT } from '../src/support/package-root.js';

export const TIMING_UPSTREAM = join(PACKAGE_ROOT, 'bench', 'fixtures', 'timing-upstream.mjs');
const BIN = join(PACKAGE_ROOT, 'bin', 'codemode-mcp.js');

export interface Connected {
  readonly client: Client;
  readonly pid: number;
  close(): Promise<void>;
}

/**
 * An SDK client over stdio to the server this command line starts (its variables beside the SDK's
 * default environment); the server's stderr dropped unless said.
 */
export async function connect(
  command: string,
  args: string[],
  env?: Record<string, string>,
  stderr: 'ignore' | 'inherit' = 'ignore',
): Promise<Connected> {
  const transport = new StdioClientTransport({
    command,
    args,
    stderr,
    ...(env === undefined ? {} : { env: { ...getDefaultEnvironment(), ...env } }),
  });
  const client = new Client({ name: 'codemode-bench', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid!, close: () => client.close() };
}

/** codemode-mcp in front of the timing upstream, with the given flags (and variables beside the SDK's default environment). */
export function startServer(flags: readonly string[] = [], env?: Record<string, string>): Promise<Connected> {
  return connect(process.execPath, [BIN, ...flags, '--', process.execPath, TIMING_UPSTREAM], env);
}

/** codemode-mcp in front of the upstreams of a config file, with the given flags. */
export function startServerWithConfig(config: string, flags: readonly string[] = []): Promise<Connected> {
  return connect(process.execPath, [BIN, ...flags, '--config', config]);
}

/** An SDK client connected straight to the timing upstream: the floor for calls. */
export function startDirect(): Promise<Connected> {
  return connect(process.execPath, [TIMING_UPSTREAM]);
}

export type RunOutcome = { readonly value: unknown } | { readonly refused: string };

/**
 * Runs a script to its ending; its value (from structuredContent while small, else from the text's
 * value line), or the refusal when the server would not run it.
 */
export async function runScript(server: Connected, code: string): Promise<RunOutcome> {
  const result = await server.client.callTool({ name: 'code_execution', arguments: { code, yield_ms: 600_000 } });
  const [first] = result.content as Array<{ type: string; text?: string }>;
  const text = first?.text ?? '';
  if (text.startsWith('Refused:')) return { refused: text };
  const structured = result.structuredContent as { status?: string; value?: unknown; valueChars?: number } | undefined;
  if (structured?.status !== 'finished') throw new Error(`bench script did not finish: ${text.slice(0, 500)}`);
  if (structured.valueChars === undefined) return { value: structured.value };
  const line = text.split('\n').find((candidate) => candidate.startsWith('value: '));
  return { value: line === undefined ? undefined : JSON.parse(line.slice('value: '.length)) };
}

/** Runs a script that must finish, and returns its value. */
export async function runCode(server: Connected, code: string): Promise<unknown> {
  const outcome = await runScript(server, code);
  if ('refused' in outcome) throw new Error(`bench script was refused: ${outcome.refused}`);
  return outcome.value;
}
