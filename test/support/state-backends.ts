/**
 * The state stores a contract test runs against: memory (where asked), a directory, and a real
 * redis-server started for the file (skipped where it is missing, failing under CI=true). Calling
 * stateBackends registers the file's hooks: Redis started before its tests and stopped after, and
 * every store in `opened` closed after the test that opened it.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { DirStateStore } from '../../src/state/dir-store.js';
import { MemoryStateStore } from '../../src/state/memory-store.js';
import { RedisStateStore } from '../../src/state/redis-store.js';
import type { StateLimits, StateStore } from '../../src/state/state-store.js';
import { REDIS_INSTALLED, REDIS_MISSING, redisTestsRun, startRedis, type RunningRedis } from './redis-server.js';
import { makeTempDir } from './temp-dirs.js';

/** Limits ample for any contract test: a test of a limit passes its own. */
export const TEST_STATE_LIMITS: StateLimits = {
  stateValueMaxBytes: 1024 * 1024,
  stateMaxBytes: 64 * 1024 * 1024,
  stateMaxKeys: 10_000,
};

export interface StateBackend {
  readonly name: 'memory' | 'dir' | 'redis';
  /** A store over this backend's storage: a second call gives a second instance over the same data. */
  open(limits?: StateLimits): Promise<StateStore>;
  /** Whether two stores share what they keep (dir, redis), and whether it outlives a store's close. */
  readonly shared: boolean;
  /** Whether time is the test's clock (memory, dir) rather than the backend's own (redis). */
  readonly injectedClock: boolean;
}

export interface StateBackends {
  readonly backends: readonly StateBackend[];
  /** Stores to close after the current test. */
  readonly opened: StateStore[];
  /** The directory backend's folder. */
  readonly stateDir: () => string;
  /** The Redis backend's URL, once started. */
  readonly redisUrl: () => string;
}

/** The backends of the test file `file`, the memory store among them when `memory`, with `now` as the memory and directory stores' clock. */
export function stateBackends(file: string, now: () => number, options: { memory?: boolean } = {}): StateBackends {
  let redis: RunningRedis | undefined;
  let stateDir = '';
  const backends: StateBackend[] = [
    {
      name: 'dir',
      open: async (limits = TEST_STATE_LIMITS) => new DirStateStore(stateDir, limits, now),
      shared: true,
      injectedClock: true,
    },
  ];
  if (options.memory === true) {
    backends.unshift({
      name: 'memory',
      open: async (limits = TEST_STATE_LIMITS) => new MemoryStateStore(limits, now),
      shared: false,
      injectedClock: true,
    });
  }
  if (redisTestsRun(file)) {
    backends.push({
      name: 'redis',
      open: async (limits = TEST_STATE_LIMITS) => {
        if (redis === undefined) throw new Error(REDIS_MISSING);
        return RedisStateStore.open(redis.url, limits, () => {});
      },
      shared: true,
      injectedClock: false,
    });
  }
  const opened: StateStore[] = [];
  beforeAll(async () => {
    stateDir = join(makeTempDir(file.replace(/\.test\.ts$/, '')), 'state');
    if (REDIS_INSTALLED) redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });
  const redisUrl = (): string => {
    if (redis === undefined) throw new Error(REDIS_MISSING);
    return redis.url;
  };
  return { backends, opened, stateDir: () => stateDir, redisUrl };
}
