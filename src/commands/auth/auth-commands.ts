/**
 * `codemode-mcp login <server>` and `logout <server>`: run the sign-in (src/upstream/auth/login.ts)
 * with the server's settings, print what happened on stderr, and give the exit code.
 */
import type { RemoteUpstreamSpec } from '../../upstream/spec.js';
import { LoginError, login, logout } from '../../upstream/auth/login.js';
import { openBrowser } from '../../upstream/auth/open-browser.js';
import { upstreamReadLimit } from '../../upstream/transport/read-limit.js';
import type { CliInvocation } from '../../cli/parse-cli.js';
import { readPackageVersion } from '../../cli/package-version.js';
import { listenForEndSignals, signalExitCode } from '../../support/end-signals.js';
import { Logger } from '../../support/log.js';

export async function runAuthCommand(
  invocation: CliInvocation,
  log: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
): Promise<number> {
  const spec = invocation.upstreams[0] as RemoteUpstreamSpec;
  const say = Logger.of(log);
  if (invocation.command === 'logout') {
    say.info(logout(spec));
    return 0;
  }
  const aborter = new AbortController();
  const signals = listenForEndSignals((line) => log(line));
  void signals.first.then((signal) => aborter.abort(new Error(`interrupted (${signal})`)));
  try {
    say.info(
      await login(spec, {
        log,
        openBrowser: invocation.openBrowser === false ? async () => {} : openBrowser,
        timeoutMs: invocation.settings.upstreamStartTimeoutMs,
        maxMessageBytes: upstreamReadLimit(invocation.settings.memoryMaxBytes),
        version: readPackageVersion(),
        signal: aborter.signal,
      }),
    );
    return 0;
  } catch (error) {
    if (!(error instanceof LoginError)) throw error;
    say.error(error.message);
    return signals.received === undefined ? 1 : signalExitCode(signals.received);
  } finally {
    signals.dispose();
  }
}
