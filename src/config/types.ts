import type { LogSettings } from '../support/log.js';
import type { Settings } from './settings.js';

/**
 * Which of an upstream's tools a script may call, as globs over the tool's own upstream name. The
 * entry's `resources` and `prompts` policies take the same shape, over URIs and prompt names.
 */
export interface ToolPolicy {
  /** Absent: every tool not denied. Present: only tools matching one of these. */
  allow?: string[];
  /** Tools matching one of these are never callable, even when `allow` matches them. */
  deny?: string[];
}

/**
 * Which tools' calls wait for a person (src/config/approval-policy.ts): globs over a server
 * entry's own tool names (its `approvals`), or over the names scripts see (`settings.approvals`).
 */
export interface ApprovalGlobs {
  allow?: string[];
  ask?: string[];
  deny?: string[];
}

/** One upstream MCP server, as the rest of the server needs it: variables expanded, paths resolved. */
export type UpstreamSpec =
  | {
      name: string;
      transport: 'stdio';
      command: string;
      args: string[];
      /** Only what the entry names; the launcher adds the usual minimal set (PATH, HOME, ...). */
      env: Record<string, string>;
      cwd?: string;
      policy: ToolPolicy;
      /** The entry's `approvals`: allow, ask or deny by glob over the tool's own name. Absent: the annotations decide. */
      approvals?: ApprovalGlobs;
      /** The entry's `resources` policy: globs over URIs (a template's listing: its `uriTemplate`). Absent: all. */
      resourcePolicy?: ToolPolicy;
      /** The entry's `prompts` policy: globs over the upstream's own prompt names. Absent: all. */
      promptPolicy?: ToolPolicy;
    }
  | {
      name: string;
      transport: 'http' | 'sse';
      url: string;
      headers: Record<string, string>;
      policy: ToolPolicy;
      /** The entry's `approvals`: allow, ask or deny by glob over the tool's own name. Absent: the annotations decide. */
      approvals?: ApprovalGlobs;
      /** The entry's `resources` policy: globs over URIs (a template's listing: its `uriTemplate`). Absent: all. */
      resourcePolicy?: ToolPolicy;
      /** The entry's `prompts` policy: globs over the upstream's own prompt names. Absent: all. */
      promptPolicy?: ToolPolicy;
      /** The entry's `oauth`, checked and expanded; absent, a server that asks for a sign-in still gets one (authorization code, dynamic registration). */
      oauth?: OAuthOptions;
      /** The entry's `allowInsecureHttp`: credentials and sign-ins may go over plain http to another machine (config/cleartext.ts). */
      allowInsecureHttp?: boolean;
      /** The config file the entry came from, for the `codemode-mcp login` hint. */
      configFile?: string;
    };

/** How codemode-mcp signs in to one remote upstream (docs/upstreams.md#oauth). */
export interface OAuthOptions {
  grant: 'authorization_code' | 'client_credentials';
  /** A pre-registered client id, or an https URL: a Client ID Metadata Document. Absent: dynamic registration. */
  clientId?: string;
  clientSecret?: string;
  /** Absent: the scope the server's challenge names, else its `scopes_supported`, else none. */
  scope?: string;
  /** The loopback port the sign-in redirect comes back to. Absent: the registered one, else a free one. */
  redirectPort?: number;
  /** An absolute path: a PEM private key, for `private_key_jwt` with the client_credentials grant. */
  privateKeyFile?: string;
  /** True when `clientSecret` was written into the config itself, not taken from a `${VAR}`. */
  secretWrittenInline: boolean;
}

export interface LoadedConfig {
  /** The config file, resolved to an absolute path; null when the config did not come from a file. */
  path: string | null;
  upstreams: UpstreamSpec[];
  /** A log line for each entry that runs codemode-mcp itself as written, skipped unread (own-entries.ts). */
  ownEntries?: string[];
  /** Only the settings the file names; merge with the defaults and flags via `mergeSettings`. */
  settings: Partial<Settings>;
  /** Only the log settings the file names (logLevel, logFile), a log file's path made absolute. */
  logging: Partial<LogSettings>;
}

/** The environment `${VAR}` is expanded from. */
export type VariableSource = Readonly<Record<string, string | undefined>>;
