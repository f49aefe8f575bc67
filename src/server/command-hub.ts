/**
 * The upstreams for a one-shot command (`tools`, `run`): started, with only our own log lines
 * passed on (an upstream's stderr, "[name] ...", would bury the command's output in chatter).
 */
import type { CliInvocation } from '../cli/parse-cli.js';
import { readPackageVersion } from '../cli/package-version.js';
import { NameCollisionError } from '../errors.js';
import { UpstreamHub } from '../upstream/hub.js';

/** The started hub, or null when the upstreams can't be served as configured (said on `stderr`). */
export async function startCommandHub(invocation: CliInvocation, stderr: (line: string) => void): Promise<UpstreamHub | null> {
  const hub = new UpstreamHub(invocation.upstreams, {
    clientInfo: { name: 'codemode-mcp', version: readPackageVersion() },
    settings: invocation.settings,
    log: (line) => {
      if (!line.startsWith('[')) stderr(line);
    },
  });
  try {
    await hub.start();
    return hub;
  } catch (error) {
    // start() closed every upstream before it rejected.
    if (!(error instanceof NameCollisionError)) throw error;
    stderr(`codemode-mcp: ${error.message}`);
    return null;
  }
}
