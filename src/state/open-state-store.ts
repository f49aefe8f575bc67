import type { Settings } from '../config/settings.js';
import { Logger, type Log } from '../support/log.js';
import { DirStateStore } from './dir-store.js';
import { MemoryStateStore } from './memory-store.js';
import type { StateStore } from './state-store.js';

/**
 * The store the settings name: Redis at `stateUrl` (its client imported only then), files under
 * `stateDir`, else memory. parse-cli has refused both at once. One log line says where state lives.
 */
export async function openStateStore(settings: Settings, log: Log): Promise<StateStore> {
  if (settings.stateUrl !== null) {
    const { RedisStateStore, showRedisUrl } = await import('./redis-store.js');
    Logger.of(log).debug(`scripts' state is kept in ${showRedisUrl(settings.stateUrl)}`);
    return RedisStateStore.open(settings.stateUrl, settings, log);
  }
  if (settings.stateDir !== null) {
    Logger.of(log).debug(`scripts' state is kept in ${settings.stateDir}`);
    return new DirStateStore(settings.stateDir, settings);
  }
  return new MemoryStateStore(settings);
}
