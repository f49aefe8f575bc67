/**
 * Entries that run codemode-mcp itself. A config read from Claude Desktop's own file holds the
 * entry that starts us; started as an upstream, that copy would read the same file and start
 * another, without end. Found by command here, before anything is spawned, for a line that names
 * the entry; whatever slips past (a shell wrapper, an unusual spelling) meets the environment
 * marker instead (src/upstream/transport/environment.ts: such a copy refuses to start).
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { UpstreamSpec } from './types.js';
import { programRunBy, programStem } from './upstream-from-command.js';

const OWN_NAME = 'codemode-mcp';

/** Whether the stdio command runs codemode-mcp: by name (any version, any path) or as the same file as `ownBin`, symlinks followed. */
export function runsCodemodeMcp(command: string, args: readonly string[], ownBin: string | undefined, cwd?: string): boolean {
  const program = programRunBy(command, args);
  const name = programStem(program).toLowerCase();
  if (name === OWN_NAME || name.startsWith(`${OWN_NAME}@`)) return true;
  if (ownBin === undefined || !/[\\/]/.test(program)) return false;
  return realPath(isAbsolute(program) ? program : resolve(cwd ?? process.cwd(), program)) === realPath(ownBin);
}

/** The entries to serve, and a line for each skipped one that runs codemode-mcp itself. */
export function skipOwnEntries(
  upstreams: readonly UpstreamSpec[],
  ownBin: string | undefined,
): { kept: UpstreamSpec[]; skipped: string[] } {
  const kept: UpstreamSpec[] = [];
  const skipped: string[] = [];
  for (const upstream of upstreams) {
    if (upstream.transport !== 'stdio' || !runsCodemodeMcp(upstream.command, upstream.args, ownBin, upstream.cwd)) {
      kept.push(upstream);
      continue;
    }
    skipped.push(describeSkipped(upstream.name, upstream.command, upstream.args));
  }
  return { kept, skipped };
}

/**
 * Whether a config's entry, as written (before `${VAR}` is expanded), runs codemode-mcp by name:
 * such an entry is skipped unread, so the variables of the client that runs us (VS Code's
 * `${workspaceFolder}` in our own entry of its `mcp.json`) are never expanded or refused.
 */
export function isOwnEntryAsWritten(entry: unknown): boolean {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return false;
  const { command, args = [] } = entry as Record<string, unknown>;
  if (typeof command !== 'string' || !Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) return false;
  return runsCodemodeMcp(command, args, undefined);
}

/** The log line for an entry skipped as codemode-mcp itself. */
export function describeSkipped(name: string, command: string, args: readonly unknown[]): string {
  const commandLine = [command, ...args].join(' ');
  return (
    `codemode-mcp: upstream "${name}" is codemode-mcp itself (${commandLine}): skipped, since it would start ` +
    'these same upstreams again, and so on without end; list the servers to front in a config without it'
  );
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
