/**
 * The upstreams for a one-shot command (`tools`, `run`), started. Its log is at warn by default
 * (parse-cli.ts): an upstream's stderr and its "connected" line are info, and would bury the
 * command's output in chatter; a failure is warn and shows, quoting the upstream's last words.
 */
import type { CliInvocation } from '../cli/parse-cli.js';
import { readPackageVersion } from '../cli/package-version.js';
import { NameCollisionError } from '../errors.js';
import { UpstreamHub } from '../upstream/hub.js';
import type { Log } from '../log.js';

/**
 * 200 ms: when a one-shot command is done, how long each stdio upstream has to end by itself after
 * its stdin closes before its process group gets SIGTERM (a server gets GROUP_TERM_AFTER_MS). The
 * command has its answer; a server that takes its time to exit (server-everything takes 1.3 s)
 * would only hold the user's prompt.
 */
export const COMMAND_CLOSE_GRACE_MS = 200;

/** The started hub, or null when the upstreams can't be served as configured (said on `stderr`). */
export async function startCommandHub(invocation: CliInvocation, stderr: Log): Promise<UpstreamHub | null> {
  const hub = new UpstreamHub(invocation.upstreams, {
    clientInfo: { name: 'codemode-mcp', version: readPackageVersion() },
    settings: invocation.settings,
    closeGraceMs: COMMAND_CLOSE_GRACE_MS,
    log: stderr,
  });
  try {
    await hub.start();
    return hub;
  } catch (error) {
    // start() closed every upstream before it rejected.
    if (!(error instanceof NameCollisionError)) throw error;
    stderr(`codemode-mcp: ${error.message}`, 'error');
    return null;
  }
}
