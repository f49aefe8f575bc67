import type { UpstreamSpec } from './types.js';

/** Launchers whose first plain argument names the package they run: the upstream is named after it. */
const PACKAGE_RUNNERS = new Set(['npx', 'bunx', 'uvx', 'pipx', 'pnpx']);

/** Runners of a script file: the upstream is named after the script. */
const SCRIPT_RUNNERS = new Set(['node', 'bun', 'deno', 'python', 'python3', 'tsx', 'ts-node']);

/** Options of those launchers that take a value, so the value is not taken for the package. */
const OPTIONS_WITH_VALUES = new Set([
  '-p',
  '--package',
  '--from',
  '--with',
  '--python',
  '--registry',
  '--cache',
  '--node-options',
  '-r',
  '--require',
  '--import',
  '--loader',
]);

/** Files whose name says nothing of the server; their folder (past build folders) names it instead. */
const GENERIC_FILES = new Set(['index', 'main', 'server', 'cli', 'app']);
const BUILD_FOLDERS = new Set(['dist', 'build', 'lib', 'src', 'out', 'bin']);

/**
 * The single upstream of `codemode-mcp -- <command> [args...]`: stdio, env `{}`, no tool policy,
 * named for what it runs: the package a launcher runs (`npx -y @scope/server-x@1` → `server-x`,
 * `uvx mcp-server-fetch` → `mcp-server-fetch`), the script a runtime runs (`node build/weather.js`
 * → `weather`), else the command's basename (`/usr/bin/python3` → `python3`); sanitised to a valid
 * server name.
 */
export function upstreamFromCommand(command: string, args: readonly string[]): UpstreamSpec {
  return { name: serverNameFor(command, args), transport: 'stdio', command, args: [...args], env: {}, policy: {} };
}

/** Package managers whose `exec`/`dlx` runs a package, as npx does. */
const PACKAGE_MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);

/**
 * What a command runs: the package a launcher runs (`npx -y codemode-mcp@1` → `codemode-mcp`,
 * `npm exec codemode-mcp`), the script a runtime runs (`node /opt/x/bin/cli.js` → that path), else
 * the command itself.
 */
export function programRunBy(command: string, args: readonly string[]): string {
  const runner = stem(basename(command)).toLowerCase();
  if (PACKAGE_RUNNERS.has(runner) || (PACKAGE_MANAGERS.has(runner) && ['exec', 'dlx', 'x'].includes(args[0] ?? ''))) {
    return packageName(firstPlainArgument(PACKAGE_MANAGERS.has(runner) ? args.slice(1) : args)) ?? command;
  }
  if (SCRIPT_RUNNERS.has(runner)) return firstPlainArgument(args) ?? command;
  return command;
}

/** `/opt/x/bin/codemode-mcp.js` → `codemode-mcp`. */
export function programStem(program: string): string {
  return stem(basename(program));
}

function serverNameFor(command: string, args: readonly string[]): string {
  const runner = stem(basename(command)).toLowerCase();
  const named = PACKAGE_RUNNERS.has(runner)
    ? packageName(firstPlainArgument(args))
    : SCRIPT_RUNNERS.has(runner)
      ? scriptName(firstPlainArgument(args))
      : undefined;
  return sanitise(named ?? stem(basename(command)));
}

/** The first argument that is not an option (nor an option's value); `run` (uv, pipx, bun, deno) is skipped too. */
function firstPlainArgument(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (OPTIONS_WITH_VALUES.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith('-') || arg === 'run' || arg === 'dlx' || arg === 'exec') continue;
    return arg;
  }
  return undefined;
}

/** `@scope/server-x@1.2.3` → `server-x`; `mcp-server-fetch==0.6` → `mcp-server-fetch`. */
function packageName(spec: string | undefined): string | undefined {
  if (spec === undefined) return undefined;
  const unscoped = spec.startsWith('@') ? spec.slice(spec.indexOf('/') + 1) : spec;
  const name = unscoped.split(/@|==|>=|<=|~=|\[/)[0]!;
  return name === '' ? undefined : name;
}

/** `build/weather.js` → `weather`; `my-server/dist/index.js` → `my-server`. */
function scriptName(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  const parts = path.split(/[\\/]/).filter((part) => part !== '' && part !== '.');
  const file = stem(parts.pop() ?? '');
  if (!GENERIC_FILES.has(file.toLowerCase())) return file;
  while (parts.length > 0 && BUILD_FOLDERS.has(parts.at(-1)!.toLowerCase())) parts.pop();
  return parts.pop() ?? file;
}

function basename(path: string): string {
  return path.split(/[\\/]/).pop() ?? '';
}

function stem(file: string): string {
  const dot = file.lastIndexOf('.');
  return dot > 0 ? file.slice(0, dot) : file;
}

function sanitise(raw: string): string {
  const name = raw
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/_{2,}/g, '_') // `__` would split a prefixed tool name in two
    .replace(/^_+|_+$/g, '');
  return name === '' ? 'upstream' : name;
}
