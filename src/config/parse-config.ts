import { dirname } from 'node:path';
import { closestName } from '../../common/closest-names.js';
import { ConfigError } from './config-error.js';
import { valueType } from '../support/echo.js';
import { readFileSettings } from './file-settings.js';
import { describeSkipped, isOwnEntryAsWritten } from './own-entries.js';
import { parseServerEntry } from './parse-server-entry.js';
import type { LoadedConfig, UpstreamSpec, VariableSource } from './types.js';

export interface ParseConfigOptions {
  /** The file the value came from, resolved; named in every error. Null for a config from elsewhere. */
  path: string | null;
  /** Where `${VAR}` is looked up. Default: `process.env`. */
  env?: VariableSource;
}

/** The two keys a server list may sit under: Claude Desktop / Claude Code, and VS Code. */
const SERVERS_KEYS = ['mcpServers', 'servers'] as const;

/**
 * 256: the most upstream servers one codemode-mcp fronts; a config enabling more is refused at
 * start, naming the count and this cap. Each upstream holds a process group or a connection, a
 * retry schedule and a place in every catalog rebuild, and past a few dozen the description's
 * 2,048 characters can't even name them: a config this large is a mistake or a client's whole
 * list, better split across several instances.
 */
export const MAX_UPSTREAMS = 256;

/** The top-level keys codemode-mcp reads. */
const TOP_LEVEL_KEYS = [...SERVERS_KEYS, 'settings'] as const;

/**
 * A parsed config file's value, checked whole: the first problem throws one `ConfigError`.
 * A top-level key within two edits of one we read (`setting`, `mcpServer`) is refused as the typo
 * it almost surely is; other unknown top-level keys are left alone, since the file may be a
 * client's own (Claude Desktop's has `globalShortcut`, VS Code's `inputs`). Unknown keys in an
 * entry are refused.
 */
export function parseConfig(value: unknown, options: ParseConfigOptions): LoadedConfig {
  const file = options.path;
  const env = options.env ?? process.env;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(file, `the file must hold a JSON object such as {"mcpServers": {...}} (got ${valueType(value)})`);
  }
  const top = value as Record<string, unknown>;
  for (const key of Object.keys(top)) {
    if ((TOP_LEVEL_KEYS as readonly string[]).includes(key)) continue;
    const meant = closestName(key, TOP_LEVEL_KEYS);
    if (meant !== null) {
      throw new ConfigError(file, `has a top-level key "${key}"; did you mean "${meant}"? (it would otherwise be ignored)`);
    }
  }
  const present = SERVERS_KEYS.filter((key) => top[key] !== undefined);
  if (present.length === 2) {
    throw new ConfigError(file, 'has both "mcpServers" and "servers"; keep one of them, holding every server');
  }
  const serversKey = present[0];
  if (serversKey === undefined) {
    throw new ConfigError(
      file,
      'has no "mcpServers" (or "servers") object naming the servers, as in {"mcpServers": {"name": {"command": "..."}}}',
    );
  }
  const servers = top[serversKey];
  if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) {
    throw new ConfigError(file, `${serversKey} must be an object of servers by name (got ${valueType(servers)})`);
  }

  const entries = Object.entries(servers);
  if (entries.length === 0) throw new ConfigError(file, `${serversKey} is empty; add at least one server`);
  const context = { file, serversKey, env, baseDir: file === null ? null : dirname(file) };
  const upstreams: UpstreamSpec[] = [];
  const ownEntries: string[] = [];
  for (const [name, entry] of entries) {
    if (isOwnEntryAsWritten(entry)) {
      const { command, args = [] } = entry as { command: string; args?: string[] };
      ownEntries.push(describeSkipped(name, command, args));
      continue;
    }
    const upstream = parseServerEntry(name, entry, context);
    if (upstream !== null) upstreams.push(upstream);
  }
  // Only our own entries: the command says so, with the line for each (src/cli/parse-cli.ts).
  if (upstreams.length === 0 && ownEntries.length === 0) {
    throw new ConfigError(file, `every server in ${serversKey} is disabled; enable at least one`);
  }
  if (upstreams.length > MAX_UPSTREAMS) {
    throw new ConfigError(
      file,
      `${serversKey} enables ${upstreams.length} servers, past the cap of ${MAX_UPSTREAMS} one codemode-mcp can front; ` +
        `disable some ("disabled": true) or split them across several configs, each served by its own codemode-mcp`,
    );
  }

  return {
    path: file,
    upstreams,
    ...(ownEntries.length > 0 ? { ownEntries } : {}),
    ...readFileSettings(top.settings, file, env),
  };
}
