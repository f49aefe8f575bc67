/**
 * How `--http` serves: where it listens, who may reach it, and how its sessions are named. Read
 * from the command line (src/cli) and checked here, so that an unsafe combination (a listener
 * others can reach, with no token) never starts.
 */

/** The host `--http <port>` binds when none is given: only this machine can connect. */
export const DEFAULT_HTTP_HOST = '127.0.0.1';

/** The environment variable read for the bearer token when `--http-token` is not given. */
export const HTTP_TOKEN_ENV = 'CODEMODE_HTTP_TOKEN';

/** An instance id: letters, digits, `_` and `-`, up to 32, so it reads plainly in a session id and an nginx map. */
export const INSTANCE_ID_PATTERN = '[A-Za-z0-9_-]{1,32}';
const INSTANCE_ID = new RegExp(`^${INSTANCE_ID_PATTERN}$`);

export interface HttpOptions {
  readonly host: string;
  /** 0 picks a free port; the log line says which. */
  readonly port: number;
  /** Required as `Authorization: Bearer <token>` on every request, when set. */
  readonly token: string | undefined;
  /** Hostnames accepted in Host and Origin besides the loopback names (a proxy's public name). */
  readonly allowedHosts: readonly string[];
  /** Prefixes every session id (`<id>.<uuid>`) and script id (`<id>.<tag>-<n>`), so a load balancer can route them to this instance. */
  readonly instanceId: string | undefined;
  /** GET /healthz is answered without the token or a known Host, with the status alone (a liveness probe's). */
  readonly publicHealth: boolean;
}

/** `8080`, `0.0.0.0:8080`, `[::1]:8080`, `localhost:8080` → host and port; or what is wrong. */
export function parseHttpAddress(text: string): { host: string; port: number } | { error: string } {
  const match = /^(?:(\[[0-9A-Fa-f:.]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(text.trim());
  const port = match === null ? NaN : Number(match[2]);
  if (match === null || port > 65_535) {
    return {
      error: `--http takes [host:]port, as in 8080, 127.0.0.1:8080 or [::1]:8080 (port 0 to 65535); got ${JSON.stringify(text)}`,
    };
  }
  const host = match[1] ?? DEFAULT_HTTP_HOST;
  return { host: host.startsWith('[') ? host.slice(1, -1) : host, port };
}

/** Whether only this machine can reach an address bound to `host`. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** The refusal for options that can't be served safely, or undefined. */
export function checkHttpOptions(options: HttpOptions): string | undefined {
  if (options.instanceId !== undefined && !INSTANCE_ID.test(options.instanceId)) {
    return `--instance-id takes 1 to 32 letters, digits, "_" or "-"; got ${JSON.stringify(options.instanceId)}`;
  }
  for (const name of options.allowedHosts) {
    if (!/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)$/.test(name)) {
      return `--http-allowed-hosts takes hostnames separated by commas, without scheme or port (as in mcp.example.com,10.0.0.5); got ${JSON.stringify(name)}`;
    }
  }
  if (options.token !== undefined && options.token.length < 16) {
    return `the HTTP token must be at least 16 characters (got ${options.token.length}); generate one with: openssl rand -hex 32`;
  }
  return undefined;
}

/**
 * The refusal for a listener others can reach with no token to ask for, or undefined: a tokens
 * file (`httpTokensFile`, set on the command line or in the config file) counts as a token.
 */
export function checkHttpReach(options: HttpOptions, tokensFile: string | null): string | undefined {
  if (options.token !== undefined || tokensFile !== null) return undefined;
  const reachable = !isLoopback(options.host) ? `binds ${options.host}, which other machines can reach` : undefined;
  const proxied = options.allowedHosts.find((name) => !isLoopback(name));
  const why =
    reachable ??
    (proxied !== undefined ? `accepts requests for ${proxied} (--http-allowed-hosts), so others can reach it` : undefined);
  if (why === undefined) return undefined;
  return (
    `--http ${why}, and has no token: anyone who can connect could run code against your MCP servers. ` +
    `Set one with --http-token <token> or the ${HTTP_TOKEN_ENV} environment variable (clients then send "Authorization: Bearer <token>"), ` +
    'give each caller its own with --http-tokens-file <file>, or bind to 127.0.0.1'
  );
}

/**
 * The loopback names, as the SDK's `localhostAllowedHostnames()` gives them: written out here, so the
 * command line's parsing does not load the SDK, a large part of a start-up
 * (bench/ANALYSIS.md, "Figures from the code's comments").
 */
const LOOPBACK_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];

/** The hostnames a request's Host and Origin may name: the loopback names, the bound address, and the allowed hosts. */
export function acceptedHostnames(options: HttpOptions): string[] {
  const bound = options.host.includes(':') ? `[${options.host}]` : options.host;
  const wildcard = options.host === '0.0.0.0' || options.host === '::';
  return [
    ...new Set([
      ...LOOPBACK_HOSTNAMES,
      ...(wildcard ? [] : [bound.toLowerCase()]),
      ...options.allowedHosts.map((name) => name.toLowerCase()),
    ]),
  ];
}
