/**
 * The tokenizer's vault in Redis or Valkey, on the state store's connection
 * (src/state/redis-store.ts), under `codemode:tokens:` (scripts' state is under `codemode:state:`,
 * so no script can `load` it). A key is a string key with Redis's own expiry (an entry's value set
 * under each of its keys); the write that succeeds only where the key is absent is `SET … PX <ttl> NX`. Beside the entries, a space has an
 * index (a sorted set: key → when it expires) that overflow() reads the oldest from, and a counter
 * a label (`INCRBY`, no time to live, so a number is never given twice). A space's keys share a
 * hash tag, so a cluster keeps them in one slot; each batch is one script, atomic.
 */
import { digestName } from './state-store.js';
import { checkVaultKey, type NewVaultEntry, type VaultEntry, type VaultStore } from './vault-store.js';

/** Every key of the vault starts with it. */
const KEY_PREFIX = 'codemode:tokens:';

/** Sends one command to Redis (RedisStateStore's connection, failing with STATE_UNAVAILABLE while it is away). */
export type RedisSend = <T>(command: string[]) => Promise<T>;

const NOW_LUA = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS: the entries, then the index. ARGV: ttlMs, then each entry's key in the index. Each value, renewed, or false. */
const TOUCH_LUA = `${NOW_LUA}
local ttl, index, out = tonumber(ARGV[1]), KEYS[#KEYS], {}
for i = 1, #KEYS - 1 do
  local value = redis.call('GET', KEYS[i])
  if value then
    redis.call('PEXPIRE', KEYS[i], ttl)
    redis.call('ZADD', index, now + ttl, ARGV[1 + i])
  end
  out[i] = value
end
return out`;

/**
 * KEYS: each entry's keys in turn, then the index. ARGV: ttlMs, then per entry its number of keys,
 * its value and its keys in the index. Per entry: -1 when written under every key, else the
 * (0-based) index of the first key found taken, the keys set before it deleted again.
 */
const ADD_LUA = `${NOW_LUA}
local ttl, index, out = tonumber(ARGV[1]), KEYS[#KEYS], {}
local a, k, e = 2, 1, 1
while a <= #ARGV do
  local count, value = tonumber(ARGV[a]), ARGV[a + 1]
  local taken = -1
  for j = 0, count - 1 do
    if not redis.call('SET', KEYS[k + j], value, 'PX', ttl, 'NX') then
      taken = j
      break
    end
  end
  if taken == -1 then
    for j = 0, count - 1 do redis.call('ZADD', index, now + ttl, ARGV[a + 2 + j]) end
  else
    for j = 0, taken - 1 do redis.call('DEL', KEYS[k + j]) end
  end
  out[e] = taken
  a, k, e = a + 2 + count, k + count, e + 1
end
return out`;

/** KEYS: the entries, then the index. ARGV: the keys in the index. */
const REMOVE_LUA = `for i = 1, #KEYS - 1 do
  redis.call('DEL', KEYS[i])
  redis.call('ZREM', KEYS[#KEYS], ARGV[i])
end
return 0`;

/** KEYS: the index. ARGV: the prefix, how many to keep. Drops the expired; the live keys with the prefix beyond those kept, soonest to expire first. */
const OVERFLOW_LUA = `${NOW_LUA}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local mine = {}
for _, key in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if string.sub(key, 1, #ARGV[1]) == ARGV[1] then table.insert(mine, key) end
end
local out = {}
for i = 1, #mine - tonumber(ARGV[2]) do out[i] = mine[i] end
return out`;

/** Keys a SCAN asks for at once, dropping a space. */
const SCAN_COUNT = '1000';

/** `codemode:tokens:{<sha256 of the space>}:`: the hash tag keeps a space's keys in one cluster slot. */
function spacePrefix(space: string): string {
  return `${KEY_PREFIX}{${digestName(space)}}:`;
}

export class RedisVaultStore implements VaultStore {
  constructor(private readonly send: RedisSend) {}

  async touch(space: string, keys: readonly string[], ttlMs: number): Promise<Array<string | undefined>> {
    if (keys.length === 0) return [];
    keys.forEach(checkVaultKey);
    const prefix = spacePrefix(space);
    const keyNames = [...keys.map((key) => prefix + key), `${prefix}#index`];
    const values = await this.send<Array<string | null>>([
      'EVAL',
      TOUCH_LUA,
      String(keyNames.length),
      ...keyNames,
      String(ttlMs),
      ...keys,
    ]);
    return values.map((value) => value ?? undefined);
  }

  async add(space: string, entries: readonly NewVaultEntry[], ttlMs: number): Promise<number[]> {
    if (entries.length === 0) return [];
    for (const { keys } of entries) keys.forEach(checkVaultKey);
    const prefix = spacePrefix(space);
    const keyNames = [...entries.flatMap(({ keys }) => keys.map((key) => prefix + key)), `${prefix}#index`];
    const args = [String(ttlMs), ...entries.flatMap(({ keys, value }) => [String(keys.length), value, ...keys])];
    return this.send<number[]>(['EVAL', ADD_LUA, String(keyNames.length), ...keyNames, ...args]);
  }

  async remove(space: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    keys.forEach(checkVaultKey);
    const prefix = spacePrefix(space);
    const keyNames = [...keys.map((key) => prefix + key), `${prefix}#index`];
    await this.send(['EVAL', REMOVE_LUA, String(keyNames.length), ...keyNames, ...keys]);
  }

  async reserve(space: string, counter: string, count: number): Promise<number> {
    checkVaultKey(counter);
    const last = await this.send<number>(['INCRBY', `${spacePrefix(space)}#n:${counter}`, String(count)]);
    return last - count + 1;
  }

  async overflow(space: string, prefix: string, keep: number): Promise<VaultEntry[]> {
    const spaceKeys = spacePrefix(space);
    const keys = await this.send<string[]>(['EVAL', OVERFLOW_LUA, '1', `${spaceKeys}#index`, prefix, String(keep)]);
    if (keys.length === 0) return [];
    const values = await this.send<Array<string | null>>(['MGET', ...keys.map((key) => spaceKeys + key)]);
    return keys.flatMap((key, i) => {
      const value = values[i];
      return value === null || value === undefined ? [] : [{ key, value }];
    });
  }

  async drop(space: string): Promise<void> {
    const match = `${spacePrefix(space)}*`;
    let cursor = '0';
    do {
      const [next, keys] = await this.send<[string, string[]]>(['SCAN', cursor, 'MATCH', match, 'COUNT', SCAN_COUNT]);
      if (keys.length > 0) await this.send(['UNLINK', ...keys]);
      cursor = next;
    } while (cursor !== '0');
  }
}
