/** Upstream entries and small readers shared by the upstream tests. */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { StdioUpstreamSpec, ToolPolicy } from '../../src/upstream/spec.js';

const fixturesDir = fileURLToPath(new URL('../fixtures/upstreams/', import.meta.url));
const packageEntry = (pkg: string): string =>
  fileURLToPath(new URL(`../../node_modules/@modelcontextprotocol/${pkg}/dist/index.js`, import.meta.url));

export function fixture(
  name: string,
  file: string,
  options: { args?: string[]; env?: Record<string, string>; policy?: ToolPolicy; cwd?: string } = {},
): StdioUpstreamSpec {
  return {
    name,
    transport: 'stdio',
    command: process.execPath,
    args: [`${fixturesDir}${file}`, ...(options.args ?? [])],
    env: options.env ?? {},
    policy: options.policy ?? {},
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
  };
}

/** An npm-published reference server, started the way its bin would be. */
export function published(name: string, pkg: 'server-everything' | 'server-memory' | 'server-filesystem', args: string[] = [], env: Record<string, string> = {}): StdioUpstreamSpec {
  return { name, transport: 'stdio', command: process.execPath, args: [packageEntry(pkg), ...args], env, policy: {} };
}

export const everythingEntry = packageEntry('server-everything');

/** A log sink that keeps the lines. */
export function collectLog(): { lines: string[]; log: (line: string) => void } {
  const lines: string[] = [];
  return { lines, log: (line) => void lines.push(line) };
}

/** The JSON lines the recorder fixture wrote. */
export function readRecord(file: string): Array<Record<string, unknown>> {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
}

export function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('');
}

export async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
