/**
 * Runs what the command line asked for (parseCli's CliInvocation): `tools` prints the catalog
 * and exits; `run` runs one script and exits; `--http` serves Streamable HTTP until a signal;
 * anything else serves over stdio until the client goes away. Each command's modules load when
 * it runs: over stdio, the upstreams and the pool start before the MCP SDK has loaded
 * (server/early-start.ts).
 */
import { EXIT_CONFIG, type CliInvocation } from './cli/parse-cli.js';
import { configureProcessLog, LogFileError } from './log.js';

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
    const { runAuthCommand } = await import('./cli/auth-commands.js');
    process.exitCode = await runAuthCommand(invocation);
    return;
  }
  if (invocation.command === 'tools') {
    const { printTools } = await import('./server/print-tools.js');
    process.exitCode = await printTools(invocation);
    return;
  }
  if (invocation.command === 'run') {
    const { runOnce } = await import('./server/run-once.js');
    process.exitCode = await runOnce(invocation);
    return;
  }
  if (invocation.http !== undefined) {
    const { serveHttp } = await import('./server/serve-http.js');
    await serveHttp(invocation, invocation.http);
    return;
  }
  const { startEarly } = await import('./server/early-start.js');
  const early = startEarly(invocation);
  const { serveStdio } = await import('./server/serve-stdio.js');
  await serveStdio(invocation, early);
}
