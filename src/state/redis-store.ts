/**
 * State in Redis or Valkey at `--state-url`, shared by every instance that uses the same server.
 * Each entry is a string key holding the value's JSON, with Redis's own expiry for a time to live;
 * beside them each principal has an index (a hash: key → `<bytes> <expiresAt>`) that the limits are
 * measured from and `keys()` lists, so neither scans the whole database. A write checks the limits,
 * sets the value and updates the index in one Lua script: atomic per key, and the limits hold across
 * instances. A principal's keys share a hash tag, so a cluster keeps them in one slot.
 *
 * The client (`@redis/client`) is imported only when this store is opened: a server without
 * --state-url never loads it. While Redis can't be reached, each operation fails at once with
 * STATE_UNAVAILABLE (no queue that would hold a script until its lifetime), and the client
 * reconnects in the background.
 */
import { createRequire } from 'node:module';
import type { RedisClientType } from '@redis/client';
import { Logger, type Log } from '../support/log.js';
import { checkKey, checkRoom, checkTtl, checkValue, entryBytes } from './entry-checks.js';
import { StateError } from './state-error.js';
import { digestName, type Principal, type SetOptions, type StateLimits, type StateStore } from './state-store.js';
import { deferred } from '../support/deferred.js';
import { RedisVaultStore } from './redis-vault-store.js';
import type { VaultStore } from './vault-store.js';

/** Every key this store makes starts with it. */
const KEY_PREFIX = 'codemode:state:';

/** 2 s: the longest pause between two attempts to reach Redis again. */
const RECONNECT_MAX_MS = 2_000;

/** Redis's clock in epoch milliseconds, the one every instance shares. */
const NOW_LUA = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** The index's live entries (expired ones deleted): count, total bytes, and `field`'s bytes or -1. */
const MEASURE_LUA = `${NOW_LUA}
local count, total, replaced = 0, 0, -1
local all = redis.call('HGETALL', KEYS[2])
for i = 1, #all, 2 do
  local bytes, expires = string.match(all[i + 1], '^(%d+) (%d+)$')
  bytes = tonumber(bytes)
  expires = tonumber(expires)
  if expires ~= 0 and expires <= now then
    redis.call('HDEL', KEYS[2], all[i])
  else
    count = count + 1
    total = total + bytes
    if all[i] == ARGV[2] then replaced = bytes end
  end
end`;

/**
 * KEYS: the value's key, the index. ARGV: json, key, entry bytes, ttlMs (0: none), stateMaxKeys,
 * stateMaxBytes. Returns {1} when written, else {0, keys, bytes, replaced} for checkRoom to word.
 */
const SET_LUA = `${MEASURE_LUA}
local bytes, ttl = tonumber(ARGV[3]), tonumber(ARGV[4])
if (replaced == -1 and count + 1 > tonumber(ARGV[5])) or (total - math.max(replaced, 0) + bytes > tonumber(ARGV[6])) then
  return {0, count, total, replaced}
end
if ttl > 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
  redis.call('HSET', KEYS[2], ARGV[2], bytes .. ' ' .. (now + ttl))
else
  redis.call('SET', KEYS[1], ARGV[1])
  redis.call('HSET', KEYS[2], ARGV[2], bytes .. ' 0')
end
return {1}`;

/** KEYS: the index. ARGV: the prefix. The live keys that start with it. */
const KEYS_LUA = `${NOW_LUA}
local live = {}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local expires = tonumber(string.match(all[i + 1], ' (%d+)$'))
  if expires ~= 0 and expires <= now then
    redis.call('HDEL', KEYS[1], all[i])
  elseif string.sub(all[i], 1, #ARGV[1]) == ARGV[1] then
    table.insert(live, all[i])
  end
end
return live`;

/** KEYS: the value's key, the index. ARGV: the key. 1 when a live value was deleted. */
const REMOVE_LUA = `local n = redis.call('DEL', KEYS[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return n`;

/** `redis://host:port`: the URL as a message may show it, without a user or password. */
export function showRedisUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}

export class RedisStateStore implements StateStore {
  readonly vaultStore: VaultStore = new RedisVaultStore(<T>(command: string[]) => this.send<T>(command));
  /** Settles once the first attempt to connect has succeeded or failed. */
  private readonly firstAttempt = deferred();
  private lastError = 'not connected yet';

  private constructor(
    private readonly client: RedisClientType,
    private readonly url: string,
    private readonly limits: StateLimits,
    sink: Log,
  ) {
    const log = Logger.of(sink).child('state');
    client.on('ready', () => {
      if (this.lastError !== 'not connected yet') log.info(`reached ${showRedisUrl(url)} again`);
      this.lastError = '';
      this.firstAttempt.resolve();
    });
    client.on('error', (error: Error) => {
      if (error.message !== this.lastError) {
        log.warn(`${showRedisUrl(url)} can't be reached (${error.message}); store and load fail until it is back`);
      }
      this.lastError = error.message;
      this.firstAttempt.resolve();
    });
    // Retried without end by the reconnect strategy; each failure is an 'error' event.
    client.connect().catch(() => {});
  }

  /** A store over the Redis at `url`; it connects in the background, and reconnects whenever the connection drops. */
  static open(url: string, limits: StateLimits, log: Log): RedisStateStore {
    // require, not import(): the server's bundle runs as a vm.Script, where an import() resolves
    // by the main context's loader (and not at all before Node 20.12); require resolves from the bundle.
    const { createClient } = createRequire(import.meta.url)('@redis/client') as typeof import('@redis/client');
    const client = createClient({
      url,
      disableOfflineQueue: true,
      socket: { reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 10), RECONNECT_MAX_MS) },
    }) as unknown as RedisClientType;
    return new RedisStateStore(client, url, limits, log);
  }

  async get(principal: Principal, key: string): Promise<string | undefined> {
    checkKey(key);
    const json = await this.send<string | null>(['GET', valueKey(principal, key)]);
    return json ?? undefined;
  }

  async set(principal: Principal, key: string, json: string, options?: SetOptions): Promise<void> {
    checkKey(key);
    const ttlMs = checkTtl(options) ?? 0;
    checkValue(key, json, this.limits);
    const bytes = entryBytes(key, json);
    const { stateMaxKeys, stateMaxBytes } = this.limits;
    const keys = [valueKey(principal, key), indexKey(principal)];
    const args = [json, key, String(bytes), String(ttlMs), String(stateMaxKeys), String(stateMaxBytes)];
    const [written, count = 0, total = 0, replaced = -1] = await this.send<number[]>(['EVAL', SET_LUA, '2', ...keys, ...args]);
    if (written === 1) return;
    checkRoom(key, bytes, replaced === -1 ? undefined : replaced, { keys: count, bytes: total }, this.limits);
    throw new Error(`state: Redis refused storing a key that checkRoom lets through (${count} keys, ${total} bytes)`);
  }

  async keys(principal: Principal, prefix = ''): Promise<string[]> {
    const live = await this.send<string[]>(['EVAL', KEYS_LUA, '1', indexKey(principal), prefix]);
    return live.sort();
  }

  async remove(principal: Principal, key: string): Promise<boolean> {
    checkKey(key);
    const removed = await this.send<number>(['EVAL', REMOVE_LUA, '2', valueKey(principal, key), indexKey(principal), key]);
    return removed === 1;
  }

  async close(): Promise<void> {
    if (this.client.isReady) await this.client.close();
    else this.client.destroy();
  }

  private async send<T>(command: string[]): Promise<T> {
    await this.firstAttempt.promise;
    if (!this.client.isReady) throw this.unavailable(this.lastError);
    try {
      return await this.client.sendCommand<T>(command);
    } catch (error) {
      // A reply of Redis's own (a script's error) is a bug here, not Redis being away.
      if (this.client.isReady) throw error;
      throw this.unavailable(error instanceof Error ? error.message : String(error));
    }
  }

  private unavailable(why: string): StateError {
    return new StateError(
      'STATE_UNAVAILABLE',
      `the state store at ${showRedisUrl(this.url)} can't be reached (${why}); nothing was read or written`,
    );
  }
}

/** `codemode:state:{<sha256 of the principal>}:`: the hash tag keeps a principal's keys in one cluster slot. */
function principalPrefix(principal: Principal): string {
  return `${KEY_PREFIX}{${digestName(principal)}}:`;
}

function valueKey(principal: Principal, key: string): string {
  return `${principalPrefix(principal)}v:${key}`;
}

function indexKey(principal: Principal): string {
  return `${principalPrefix(principal)}i`;
}
