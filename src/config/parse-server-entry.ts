import { isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { credentialHeaders, isCleartextToAnotherHost } from './cleartext.js';
import { ConfigError, type ConfigPath } from './config-error.js';
import { formatPath } from '../support/value-path.js';
import { valueType } from '../support/echo.js';
import { ENTRY_TYPES, keysTakenBy, remoteEntrySchema, stdioEntrySchema } from './entry-schemas.js';
import { VariableError, expandVariables } from './expand-variables.js';
import { describeIssue, pickIssue } from '../support/describe-issues.js';
import { readOAuth } from './read-oauth.js';
import type { ApprovalGlobs, ToolPolicy, UpstreamSpec, VariableSource } from './types.js';

export interface EntryContext {
  file: string | null;
  /** `mcpServers` or `servers`: the key the entry sits under, for paths in messages. */
  serversKey: string;
  env: VariableSource;
  /** A relative `cwd` is taken from here: the config file's directory. Null leaves it relative. */
  baseDir: string | null;
}

const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

/** One server entry, checked and expanded; null when it is disabled. Throws `ConfigError`. */
export function parseServerEntry(name: string, raw: unknown, context: EntryContext): UpstreamSpec | null {
  const path: ConfigPath = [context.serversKey, name];
  const invalid = (detail: string): ConfigError => new ConfigError(context.file, detail);
  const at = formatPath(path);

  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw invalid(`${at} must be an object (got ${valueType(raw)})`);
  }
  const entry = raw as Record<string, unknown>;
  if (entry.disabled !== undefined && typeof entry.disabled !== 'boolean') {
    throw invalid(`${formatPath([...path, 'disabled'])} must be true or false (got ${valueType(entry.disabled)})`);
  }
  if (entry.disabled === true) return null;

  if (!SERVER_NAME.test(name)) {
    throw invalid(
      `${at}: a server name may hold only letters, digits, "_" and "-", since it becomes the prefix ` +
        `of its tools' names (<server>__<tool>); rename the server`,
    );
  }
  if (name.includes('__')) {
    throw invalid(
      `${at}: a server name can't contain "__", which separates server from tool in <server>__<tool>; rename the server`,
    );
  }

  const type = entry.type ?? (entry.url !== undefined ? 'http' : 'stdio');
  if (!ENTRY_TYPES.some((known) => known === type)) {
    throw invalid(`${formatPath([...path, 'type'])} must be "stdio", "http" or "sse" (got ${JSON.stringify(type)})`);
  }
  if (entry.type === undefined && entry.url !== undefined && entry.command !== undefined) {
    throw invalid(`${at} has both "command" and "url"; keep "command" to start it over stdio, or "url" to reach it over http`);
  }
  // An unknown key is likelier a misspelt "command" than a missing one: let the schema name it.
  const unknownKey = Object.keys(entry).some((key) => !Object.hasOwn(stdioEntrySchema.shape, key));
  if (type === 'stdio' && entry.command === undefined && entry.url === undefined && !unknownKey) {
    throw invalid(`${at} needs "command" (to start the server over stdio) or "url" (to reach it over http or sse)`);
  }

  const validate = <S extends typeof stdioEntrySchema | typeof remoteEntrySchema>(schema: S): z.output<S> => {
    const parsed = schema.safeParse(entry);
    if (parsed.success) return parsed.data as z.output<S>;
    const issue = pickIssue(parsed.error.issues);
    throw invalid(
      issue === undefined
        ? `${at} is invalid`
        : describeIssue(issue, entry, { at: path, keysTaken: keysTakenBy(schema), got: 'type' }),
    );
  };
  const expand = (text: string, where: ConfigPath): string => {
    try {
      return expandVariables(text, context.env);
    } catch (error) {
      if (error instanceof VariableError) throw invalid(`${formatPath([...path, ...where])} ${error.text}`);
      throw error;
    }
  };

  if (type === 'stdio') {
    const data = validate(stdioEntrySchema);
    const cwd = data.cwd === undefined ? undefined : expand(data.cwd, ['cwd']);
    return {
      name,
      transport: 'stdio',
      command: expand(data.command, ['command']),
      args: data.args.map((arg, i) => expand(arg, ['args', i])),
      env: mapValues(data.env, (value, key) => expand(value, ['env', key])),
      ...(cwd === undefined ? {} : { cwd: context.baseDir === null || isAbsolute(cwd) ? cwd : resolve(context.baseDir, cwd) }),
      ...readPolicies(name, data, path, invalid),
    };
  }

  const data = validate(remoteEntrySchema);
  const url = expand(data.url, ['url']);
  if (!/^https?:$/.test(protocolOf(url))) {
    // The unexpanded value: the expanded one may carry a secret from the environment.
    throw invalid(`${formatPath([...path, 'url'])} must be an http:// or https:// URL (got ${JSON.stringify(data.url)})`);
  }
  const oauth =
    data.oauth === undefined
      ? undefined
      : readOAuth(data.oauth, { path: [...path, 'oauth'], expand, invalid, baseDir: context.baseDir });
  const allowInsecureHttp = data.allowInsecureHttp === true;
  if (!allowInsecureHttp && isCleartextToAnotherHost(url)) {
    const credentials = [
      ...credentialHeaders(data.headers).map((header) => `its "${header}" header`),
      ...(oauth === undefined ? [] : ['the tokens of its "oauth" sign-in']),
    ];
    if (credentials.length > 0) {
      // The unexpanded value, as above.
      throw invalid(
        `${at} sends ${credentials.join(' and ')} to ${JSON.stringify(data.url)}, plain http to another machine, where anyone ` +
          `on the way can read them (bearer tokens go only over TLS, RFC 6750 §5.3); use an https:// URL, or set ` +
          `"allowInsecureHttp": true in the entry if you trust every network between`,
      );
    }
  }
  return {
    name,
    transport: data.type ?? 'http',
    url,
    headers: mapValues(data.headers, (value, key) => expand(value, ['headers', key])),
    ...readPolicies(name, data, path, invalid),
    ...(oauth === undefined ? {} : { oauth }),
    ...(allowInsecureHttp ? { allowInsecureHttp } : {}),
    ...(context.file === null ? {} : { configFile: context.file }),
  };
}

type Globs = { allow?: string[] | undefined; deny?: string[] | undefined };

type Approvals = { allow?: string[] | undefined; ask?: string[] | undefined; deny?: string[] | undefined };

/** The entry's `allow`/`deny` (tools), its `approvals`, and its `resources` and `prompts` policies when it has them. */
function readPolicies(
  name: string,
  data: Globs & { approvals?: Approvals | undefined; resources?: Globs | undefined; prompts?: Globs | undefined },
  path: ConfigPath,
  invalid: (detail: string) => ConfigError,
): { policy: ToolPolicy; approvals?: ApprovalGlobs; resourcePolicy?: ToolPolicy; promptPolicy?: ToolPolicy } {
  return {
    policy: readPolicy({ name, what: 'tool' }, data, path, invalid),
    ...(data.approvals !== undefined ? { approvals: readApprovals(name, data.approvals, [...path, 'approvals'], invalid) } : {}),
    // URIs are never prefixed, so any glob may be meant.
    ...(data.resources !== undefined
      ? { resourcePolicy: readPolicy(undefined, data.resources, [...path, 'resources'], invalid) }
      : {}),
    ...(data.prompts !== undefined
      ? { promptPolicy: readPolicy({ name, what: 'prompt' }, data.prompts, [...path, 'prompts'], invalid) }
      : {}),
  };
}

/** `prefixed`: the server and what its names are, to refuse a glob written with its prefix (names are matched unprefixed). */
function readPolicy(
  prefixed: { name: string; what: string } | undefined,
  data: Globs,
  path: ConfigPath,
  invalid: (detail: string) => ConfigError,
): ToolPolicy {
  const policy: ToolPolicy = {};
  for (const key of ['allow', 'deny'] as const) {
    const globs = data[key];
    if (globs === undefined) continue;
    checkUnprefixed(prefixed, globs, [...path, key], invalid);
    policy[key] = [...globs];
  }
  return policy;
}

/** The entry's `approvals`: each list's globs over the tool's own name. */
function readApprovals(name: string, data: Approvals, path: ConfigPath, invalid: (detail: string) => ConfigError): ApprovalGlobs {
  const approvals: ApprovalGlobs = {};
  for (const key of ['allow', 'ask', 'deny'] as const) {
    const globs = data[key];
    if (globs === undefined) continue;
    checkUnprefixed({ name, what: 'tool' }, globs, [...path, key], invalid);
    approvals[key] = [...globs];
  }
  return approvals;
}

/** A prefixed glob would silently match nothing: an entry's globs see the upstream's own names. */
function checkUnprefixed(
  prefixed: { name: string; what: string } | undefined,
  globs: readonly string[],
  path: ConfigPath,
  invalid: (detail: string) => ConfigError,
): void {
  if (prefixed === undefined) return;
  globs.forEach((glob, i) => {
    if (glob.startsWith(`${prefixed.name}__`)) {
      throw invalid(
        `${formatPath([...path, i])} is "${glob}", but globs match the ${prefixed.what}'s own name: ` +
          `write "${glob.slice(prefixed.name.length + 2)}"`,
      );
    }
  });
}

function protocolOf(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return '';
  }
}

function mapValues(record: Record<string, string>, map: (value: string, key: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value, key)]));
}
