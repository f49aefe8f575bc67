/**
 * Serving starts at once; the upstreams connect in the background. `tools/list` and `tools/call`
 * wait for them, up to a bound from the server's start, so the first description names their
 * tools without holding the client's `initialize` hostage to the slowest upstream (an `npx -y`
 * download, say).
 */

/**
 * 15 s from start: the longest `tools/list` and `tools/call` wait for the upstreams' first start.
 * Past it they answer with the tools known so far; a late upstream's tools arrive with
 * `tools/list_changed`, and a script's call to it meanwhile is refused as UPSTREAM_CONNECTING.
 */
export const STARTUP_WAIT_MS = 15_000;

/**
 * Settles when `started` settles or `waitMs` has passed, whichever is first; never rejects (a
 * failed start is the caller's to handle on `started` itself).
 */
export function startupWait(started: Promise<unknown>, waitMs: number = STARTUP_WAIT_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, waitMs);
    timer.unref();
  });
  const settled = started.then(
    () => clearTimeout(timer),
    () => clearTimeout(timer),
  );
  return Promise.race([settled, bound]);
}
