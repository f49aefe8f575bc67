/**
 * An HTTP instance's drain on SIGTERM (drainGraceMs), so a rolling restart behind a load balancer
 * doesn't cut running scripts short: the instance starts no new session or script (a `run` is
 * refused saying to run it again, which the load balancer sends elsewhere; /healthz answers 503),
 * answers `wait` and `stop` on the scripts it runs, and shuts down once they have all ended or the
 * grace has passed. A second signal ends the drain at once.
 */
import type { ChildPool, PoolChild } from '../../scripts/child-pool.js';
import { formatSettingValue, SETTINGS, type Settings } from '../../config/settings.js';
import type { EndSignal } from '../../support/end-signals.js';
import { Logger, type Log } from '../../support/log.js';
import { settleWithin } from '../../support/settle.js';

export interface DrainDeps {
  readonly supply: Pick<ChildPool<PoolChild>, 'drain' | 'size' | 'pooledCount'>;
  readonly settings: Pick<Settings, 'drainGraceMs'>;
  readonly instanceId: string | undefined;
  readonly log: Log;
  /** Called as the drain begins: new sessions are refused from then on, and /healthz says so. */
  readonly began: () => void;
}

/** Drains on SIGTERM when drainGraceMs is above 0; any other signal, or a grace of 0, shuts down at once. */
export async function drainOnSigterm(deps: DrainDeps, signal: EndSignal, hurry: AbortSignal): Promise<void> {
  const { supply, settings } = deps;
  const log = Logger.of(deps.log);
  if (signal !== 'SIGTERM' || settings.drainGraceMs === 0) return;
  deps.began();
  const running = (): string => {
    const count = supply.size - supply.pooledCount;
    return `${count} running script${count === 1 ? '' : 's'}`;
  };
  const grace = formatSettingValue(SETTINGS.drainGraceMs, settings.drainGraceMs);
  const idle = supply.drain(drainRefusal(deps.instanceId));
  log.info(
    `draining (SIGTERM): no new sessions or scripts; ${running()} may go on ending for up to ${grace} ` +
      '(drainGraceMs) to end, then the shutdown stops those left; a second SIGTERM shuts down now',
  );
  const outcome = await settleWithin(idle, { ms: settings.drainGraceMs, signal: hurry, ref: true });
  log.info(
    outcome === 'settled'
      ? 'drained: every running script has ended'
      : `${outcome === 'timeout' ? `drain grace (${grace}) over` : 'drain cut short by a second signal'}: ` +
          `the shutdown stops the ${running()} left`,
  );
}

/** A run's refusal while the instance drains. */
function drainRefusal(instanceId: string | undefined): string {
  return (
    `${instanceId !== undefined ? `instance ${instanceId}` : 'this server'} is draining before it shuts down, and starts no new script. ` +
    'Run the script again: a load balancer sends it to another instance. Scripts already running here still answer wait and stop.'
  );
}
