/**
 * The upstreams for a one-shot command (`tools`, `run`), started. Its log is at warn by default
 * (parse-cli.ts): an upstream's stderr and its "connected" line are info, and would bury the
 * command's output in chatter; a failure is warn and shows, quoting the upstream's last words.
 */
import type { CliInvocation } from '../cli/parse-cli.js';
import { readPackageVersion } from '../cli/package-version.js';
import { NameCollisionError } from '../support/errors.js';
import { UpstreamHub } from '../upstream/hub.js';
import { Logger, type Log } from '../support/log.js';
import type { EndSignals } from '../support/end-signals.js';
import { closeLeavingNoProcess } from '../support/process-tree.js';

/**
 * 200 ms: when a one-shot command is done, how long each stdio upstream has to end by itself after
 * its stdin closes before its process group gets SIGTERM (a server gets GROUP_TERM_AFTER_MS). The
 * command has its answer; a server that takes its time to exit (server-everything takes 1.3 s)
 * would only hold the user's prompt.
 */
export const COMMAND_CLOSE_GRACE_MS = 200;

/**
 * The started hub, or null when the upstreams can't be served as configured (said on `stderr`), or
 * when a signal came while they started: then they are closed, leaving no process, before it resolves.
 */
export async function startCommandHub(invocation: CliInvocation, stderr: Log, signals: EndSignals): Promise<UpstreamHub | null> {
  const hub = new UpstreamHub(invocation.upstreams, {
    clientInfo: { name: 'codemode-mcp', version: readPackageVersion() },
    settings: invocation.settings,
    closeGraceMs: COMMAND_CLOSE_GRACE_MS,
    log: stderr,
    // Where a second signal finds what to kill.
    processGroups: signals.processGroups,
  });
  const started = hub.start().then(
    () => 'started' as const,
    (error: unknown) => {
      // start() closed every upstream before it rejected.
      if (!(error instanceof NameCollisionError)) throw error;
      Logger.of(stderr).error(error.message);
      return 'collided' as const;
    },
  );
  // An upstream may take upstreamStartTimeoutMs to answer: a signal doesn't wait for it.
  const how = await Promise.race([started, signals.first]);
  if (how === 'started') return hub;
  if (how !== 'collided') {
    await closeLeavingNoProcess(() => hub.close(), stderr, hub.processGroups);
    await started;
  }
  return null;
}
