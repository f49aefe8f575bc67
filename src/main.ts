/**
 * Runs what the command line asked for (parseCli's CliInvocation): `tools` prints the catalog
 * and exits; `run` runs one script and exits; anything else serves over stdio until the client
 * goes away.
 */
import { runAuthCommand } from './cli/auth-commands.js';
import type { CliInvocation } from './cli/parse-cli.js';
import { printTools } from './server/print-tools.js';
import { runOnce } from './server/run-once.js';
import { serveStdio } from './server/serve-stdio.js';

export { isCliExit, parseCli } from './cli/parse-cli.js';

export async function run(invocation: CliInvocation): Promise<void> {
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
  await serveStdio(invocation);
}
