/**
 * Runs what the command line asked for (parseCli's CliInvocation): `tools` prints the catalog
 * and exits; `--http` serves Streamable HTTP until a signal; anything else serves over stdio
 * until the client goes away.
 */
import type { CliInvocation } from './cli/parse-cli.js';
import { printTools } from './server/print-tools.js';
import { serveStdio } from './server/serve-stdio.js';

export { isCliExit, parseCli } from './cli/parse-cli.js';

export async function run(invocation: CliInvocation): Promise<void> {
  if (invocation.command === 'tools') {
    process.exitCode = await printTools(invocation);
    return;
  }
  if (invocation.http !== undefined) {
    // Loaded only when asked for: a stdio start (a client spawning us) does not pay for it.
    const { serveHttp } = await import('./server/serve-http.js');
    await serveHttp(invocation, invocation.http);
  } else await serveStdio(invocation);
}
