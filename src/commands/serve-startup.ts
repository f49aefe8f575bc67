/**
 * Serving starts at once; the upstreams connect in the background. `tools/list` and `tools/call`
 * wait for them, up to `startupWaitMs` from the client's `initialize`, so the first description
 * names their tools without holding the client's `initialize` hostage to the slowest upstream (an
 * `npx -y` download, say). Past it they answer with the tools known so far; a late upstream's tools
 * arrive with `tools/list_changed`, and the description says which upstreams are still starting.
 */
import { NameCollisionError } from '../support/errors.js';
import { scriptTools } from '../script-host/script-tools.js';
import { ChildSupply } from '../scripts/child-supply.js';
import { toolEntries } from '../scripts/tool-entries.js';
import type { Settings } from '../config/settings.js';
import { formatDelay } from '../upstream/connection/backoff.js';
import type { UpstreamHub } from '../upstream/hub.js';
import type { UpstreamStatus } from '../upstream/connection/upstream.js';
import { Logger, type Log } from '../support/log.js';
import { settleWithin } from '../support/settle.js';
import { CodemodeError } from '../support/errors.js';
import { startObservability, type Observability } from '../telemetry/start-telemetry.js';

/**
 * Starts the upstreams and the warm pool. `ready` settles when requests may be answered (startupWait);
 * one line says how each upstream stands once all have settled; a start that can't be served as
 * configured (a name collision) is logged and `onFailure` runs.
 */
export function startServing(
  hub: UpstreamHub,
  settings: Settings,
  version: string,
  log: Log,
  onFailure: () => void,
): { supply: ChildSupply; ready: Promise<void> } {
  const started = hub.start();
  const ready = startupWait(hub, started, settings.startupWaitMs, log);
  const supply = new ChildSupply(settings, log, ready);
  // Pooled children get the catalog ahead of their scripts, and each change of it.
  hub.events.on('catalog-changed', () => supply.offerCatalog(scriptTools(toolEntries(hub.catalog().tools)).json));
  started.then(
    () => Logger.of(log).info(`version ${version}: ${describeUpstreams(hub.upstreamStatus())}`),
    (error: unknown) => {
      Logger.of(log).error(error instanceof NameCollisionError ? error.message : `upstreams failed to start: ${String(error)}`);
      onFailure();
    },
  );
  return { supply, ready };
}

/** `upstreams: everything ready (13 tools), github down (it exited during startup)`. */
function describeUpstreams(statuses: readonly UpstreamStatus[]): string {
  const each = statuses.map((status) => {
    if (status.state === 'ready') return `${status.name} ready (${status.toolCount ?? 0} tools)`;
    return `${status.name} ${status.state}${status.reason !== undefined ? ` (${status.reason})` : ''}`;
  });
  return `upstreams: ${each.join(', ')}`;
}

/**
 * Settles when `started` settles or `waitMs` has passed, whichever is first; never rejects (a
 * failed start is the caller's to handle on `started` itself). When the wait runs out first, one
 * log line names the upstreams still starting.
 */
export async function startupWait(
  hub: Pick<UpstreamHub, 'upstreamStatus'>,
  started: Promise<unknown>,
  waitMs: number,
  log: Log,
): Promise<void> {
  if ((await settleWithin(started, { ms: waitMs })) === 'settled') return;
  const starting = hub.upstreamStatus().filter((status) => status.state === 'connecting' && status.toolCount === undefined);
  if (starting.length > 0) {
    Logger.of(log).warn(
      `the ${formatDelay(waitMs)} start-up wait (startupWaitMs) is over; still starting: ` +
        `${starting.map((status) => status.name).join(', ')}; tools/list answers without their tools until they are up`,
    );
  }
}

/**
 * Telemetry and the audit log as the settings ask (src/telemetry/), or undefined after logging
 * why they can't start (an audit log that can't be opened, a bad OTEL_* variable): the server
 * then does not serve, rather than serve unobserved.
 */
export async function startObserving(settings: Settings, version: string, log: Log): Promise<Observability | undefined> {
  try {
    return await startObservability(settings, version, log);
  } catch (error) {
    if (!(error instanceof CodemodeError)) throw error;
    Logger.of(log).error(error.message);
    return undefined;
  }
}
