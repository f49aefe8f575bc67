/**
 * Runs what the command line asked for (parseCli's CliInvocation): `tools` prints the catalog
 * and exits; `run` runs one script and exits; `--http` serves Streamable HTTP until a signal;
 * anything else serves over stdio until the client goes away.
 */
import { runAuthCommand } from './cli/auth-commands.js';
import { EXIT_CONFIG, type CliInvocation } from './cli/parse-cli.js';
import { configureProcessLog, LogFileError } from './log.js';
import { printTools } from './server/print-tools.js';
import { runOnce } from './server/run-once.js';
import { serveStdio } from './server/serve-stdio.js';

export { isCliExit, parseCli } from './cli/parse-cli.js';

export async function run(invocation: CliInvocation): Promise<void> {
  try {
    configureProcessLog(invocation.logging);
  } catch (error) {
    if (!(error instanceof LogFileError)) throw error;
    process.stderr.write(`codemode-mcp: ${error.message}\n`);
    process.exitCode = EXIT_CONFIG;
    return;
  }
  if (invocation.command === 'login' || invocation.command === 'logout') {
    process.exitCode = await runAuthCommand(invocation);
    return;
  }
  if (invocation.command === 'tools') {
    process.exitCode = await printTools(invocation);
    return;
  }
  if (invocation.command === 'run') {
    process.exitCode = await runOnce(invocation);
    return;
  }
  if (invocation.http !== undefined) {
    // Loaded only when asked for: a stdio start (a client spawning us) does not pay for it.
    const { serveHttp } = await import('./server/serve-http.js');
    await serveHttp(invocation, invocation.http);
  } else await serveStdio(invocation);
}
