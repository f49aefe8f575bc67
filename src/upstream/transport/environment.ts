/**
 * The environment a stdio upstream starts with: the SDK's minimal set (PATH, HOME, ...), the proxy
 * and CA variables below when set, then the entry's own `env`. Never the rest of ours.
 */

/**
 * The SDK's minimal set, as its `getDefaultEnvironment()` takes it (test/upstream/environment.test.ts
 * holds the two to one answer): written out here, so that an upstream can be spawned before the
 * SDK has loaded (src/commands/serve-stdio/early-start.ts).
 */
const INHERITED_ENV_VARS =
  process.platform === 'win32'
    ? [
        'APPDATA',
        'COMSPEC',
        'HOMEDRIVE',
        'HOMEPATH',
        'LOCALAPPDATA',
        'PATH',
        'PATHEXT',
        'PROCESSOR_ARCHITECTURE',
        'PROGRAMDATA',
        'PROGRAMFILES',
        'PROGRAMFILES(X86)',
        'PROGRAMW6432',
        'SYSTEMDRIVE',
        'SYSTEMROOT',
        'TEMP',
        'USERNAME',
        'USERPROFILE',
        'WINDIR',
      ]
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

/**
 * Passed on when set: what a server (or the `npx -y` that fetches it) needs to reach the network
 * behind a proxy or a TLS-inspecting gateway. Without them such an upstream hung until its start
 * timeout and failed with no reason.
 */
export const PASSED_ENV_VARS = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
] as const;

/**
 * Set in every stdio upstream's environment, to the pid of the codemode-mcp that started it: a
 * codemode-mcp that starts with it set is an upstream of another and refuses to start (src/main.ts),
 * so a config that runs codemode-mcp itself, however spelled, can't start copies without end. Last,
 * so an entry's own `env` can't clear it.
 */
export const NESTED_MARKER = 'CODEMODE_MCP_UPSTREAM_OF';

/**
 * What such a copy says first on stderr: the codemode-mcp that started it reads it in the
 * upstream's failure and does not try again (upstream.ts).
 */
export const NESTED_REFUSAL = 'refused to start nested';

/** What a copy started as an upstream of another codemode-mcp (process `parent`) logs as it exits. */
export function nestedRefusal(parent: string): string {
  return (
    `${NESTED_REFUSAL}: it is an upstream of codemode-mcp (process ${parent}), whose config runs ` +
    'codemode-mcp itself and would start copies without end; remove that entry from its config'
  );
}

export function upstreamEnvironment(
  entryEnv: Readonly<Record<string, string>>,
  ours: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const name of INHERITED_ENV_VARS) {
    const value = ours[name];
    // A value that starts with "()" is a shell function exported as a variable: never passed on.
    if (value !== undefined && !value.startsWith('()')) passed[name] = value;
  }
  for (const name of PASSED_ENV_VARS) {
    const value = ours[name];
    if (value !== undefined) passed[name] = value;
  }
  return { ...passed, ...entryEnv, [NESTED_MARKER]: String(process.pid) };
}
