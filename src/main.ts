/**
 * Runs what the command line asked for (parseCli's CliInvocation): `tools` prints the catalog
 * and exits; `skills` lists, shows or removes a skill and exits; `run` runs one script and exits;
 * `check` type-checks one script and exits; `--http` serves Streamable HTTP until a signal;
 * anything else serves over stdio until the client goes away. Each command's modules are
 * evaluated when it runs (in the one bundle, esbuild defers a module reached by import() until
 * then): over stdio, the upstreams and the pool start before the MCP SDK's modules are evaluated
 * (src/commands/serve-stdio/early-start.ts).
 */
import { EXIT_CONFIG, type CliInvocation } from './cli/parse-cli.js';
import { LOG_SETTINGS } from './config/settings.js';
import { configureProcessLog, Logger, LogFileError } from './support/log.js';
import { NESTED_MARKER, nestedRefusal } from './upstream/transport/environment.js';

/** Exit code of a codemode-mcp started as an upstream of another (NESTED_MARKER set): it starts nothing. */
const EXIT_NESTED = 1;

export { isCliExit, parseCli } from './cli/parse-cli.js';

/**
 * How long a serving process runs before it writes V8's code cache of its bundle (src/boot): by
 * then its start and its first requests are compiled, and in the cache. Fixed.
 */
const COMPILE_CACHE_SAVE_AFTER_MS = 1_000;

/**
 * What the server needs of its bundle's compile cache (src/boot/compile-cache.ts): to write it
 * once it has run a while. Declared here, since src/boot/ is the layer above and loads this one.
 */
interface CompileCacheSaver {
  /** Writes the cache (or marks it used) and says what it did, for the debug log. */
  save(): string;
}

/** Writes the compile cache once the server has run a while (when this start did not use one). */
function saveCompileCacheSoon(compileCache: CompileCacheSaver | undefined): void {
  if (compileCache === undefined) return;
  setTimeout(() => Logger.of().debug(compileCache.save()), COMPILE_CACHE_SAVE_AFTER_MS).unref();
}

/** Runs the command; `compileCache` is the bundle's, from the executable (bin/codemode-mcp.js). */
export async function run(invocation: CliInvocation, compileCache?: CompileCacheSaver): Promise<void> {
  const log = Logger.of();
  try {
    const { flag, name } = LOG_SETTINGS.logFile;
    configureProcessLog(invocation.logging, `--${flag}, settings.${name}`);
  } catch (error) {
    if (!(error instanceof LogFileError)) throw error;
    log.error(error.message);
    process.exitCode = EXIT_CONFIG;
    return;
  }
  const nestedIn = process.env[NESTED_MARKER];
  if (
    nestedIn !== undefined &&
    invocation.command !== 'login' &&
    invocation.command !== 'logout' &&
    invocation.command !== 'skills'
  ) {
    log.error(nestedRefusal(nestedIn));
    process.exitCode = EXIT_NESTED;
    return;
  }
  for (const line of invocation.skippedUpstreams ?? []) log.warn(line);
  if (invocation.command === 'login' || invocation.command === 'logout') {
    const { runAuthCommand } = await import('./commands/auth/auth-commands.js');
    process.exitCode = await runAuthCommand(invocation);
    return;
  }
  if (invocation.command === 'skills') {
    const { runSkillsCommand } = await import('./commands/skills/skills-commands.js');
    process.exitCode = await runSkillsCommand(invocation);
    return;
  }
  if (invocation.command === 'tools') {
    const { printTools } = await import('./commands/tools/print-tools.js');
    process.exitCode = await printTools(invocation);
    return;
  }
  if (invocation.command === 'check') {
    const { checkScript } = await import('./commands/check/check-script.js');
    process.exitCode = await checkScript(invocation);
    return;
  }
  if (invocation.command === 'run') {
    const { runOnce } = await import('./commands/run/run-once.js');
    process.exitCode = await runOnce(invocation);
    return;
  }
  saveCompileCacheSoon(compileCache);
  if (invocation.http !== undefined) {
    const { serveHttp } = await import('./commands/serve-http/serve-http.js');
    await serveHttp(invocation, invocation.http);
    return;
  }
  const { startEarly } = await import('./commands/serve-stdio/early-start.js');
  const early = startEarly(invocation);
  await early.firstLook();
  const { serveStdio } = await import('./commands/serve-stdio/serve-stdio.js');
  await serveStdio(invocation, early);
}
