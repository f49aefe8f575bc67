/**
 * Serving starts at once; the upstreams connect in the background. `tools/list` and `tools/call`
 * wait for them, up to `startupWaitMs` from the client's `initialize`, so the first description
 * names their tools without holding the client's `initialize` hostage to the slowest upstream (an
 * `npx -y` download, say). Past it they answer with the tools known so far; a late upstream's tools
 * arrive with `tools/list_changed`, and the description says which upstreams are still starting.
 */
import { formatDelay } from '../upstream/backoff.js';
import type { UpstreamHub } from '../upstream/hub.js';

/**
 * Settles when `started` settles or `waitMs` has passed, whichever is first; never rejects (a
 * failed start is the caller's to handle on `started` itself). When the wait runs out first, one
 * log line names the upstreams still starting.
 */
export function startupWait(hub: Pick<UpstreamHub, 'upstreamStatus'>, started: Promise<unknown>, waitMs: number, log: (line: string) => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      const starting = hub.upstreamStatus().filter((status) => status.state === 'connecting' && status.toolCount === undefined);
      if (starting.length > 0) {
        log(
          `codemode-mcp: the ${formatDelay(waitMs)} start-up wait (startupWaitMs) is over; still starting: ` +
            `${starting.map((status) => status.name).join(', ')}; tools/list answers without their tools until they are up`,
        );
      }
      resolve();
    }, waitMs);
    timer.unref();
  });
  const settled = started.then(
    () => clearTimeout(timer),
    () => clearTimeout(timer),
  );
  return Promise.race([settled, bound]);
}
