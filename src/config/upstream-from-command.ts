import type { UpstreamSpec } from './types.js';

/**
 * The single upstream of `codemode-mcp -- <command> [args...]`: stdio, env `{}`, no tool policy,
 * named after the command's basename without its extension, sanitised to a valid server name
 * (`/usr/bin/python3` → `python3`, `npx.cmd` → `npx`, `my.server` → `my`, `@x` → `x`).
 */
export function upstreamFromCommand(command: string, args: readonly string[]): UpstreamSpec {
  return { name: serverNameFor(command), transport: 'stdio', command, args: [...args], env: {}, policy: {} };
}

function serverNameFor(command: string): string {
  const base = command.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  const stem = dot > 0 ? base.slice(0, dot) : base;
  const name = stem
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/_{2,}/g, '_') // `__` would split a prefixed tool name in two
    .replace(/^_+|_+$/g, '');
  return name === '' ? 'upstream' : name;
}
