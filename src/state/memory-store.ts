/** State in the server's memory: the default, gone when the server exits. */
import { checkKey, checkRoom, checkTtl, checkValue, entryBytes } from './entry-checks.js';
import type { Now, Principal, SetOptions, StateLimits, StateStore } from './state-store.js';

interface Entry {
  readonly json: string;
  readonly bytes: number;
  /** Epoch milliseconds; undefined: no time to live. */
  readonly expiresAt: number | undefined;
}

/** One principal's entries, and what they weigh together (kept as entries come and go). */
class Shelf {
  readonly entries = new Map<string, Entry>();
  bytes = 0;

  put(key: string, entry: Entry): void {
    this.drop(key);
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
  }

  drop(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
    return entry;
  }

  /** Removes the entries whose time to live is over. */
  sweep(now: number): void {
    for (const [key, entry] of this.entries) if (isOver(entry, now)) this.drop(key);
  }
}

function isOver(entry: Entry, now: number): boolean {
  return entry.expiresAt !== undefined && entry.expiresAt <= now;
}

/** `work()`'s value as a promise, or its throw as a rejection: the interface is async, this store is not. */
function promised<T>(work: () => T): Promise<T> {
  return new Promise((resolve) => resolve(work()));
}

export class MemoryStateStore implements StateStore {
  readonly vaultStore = undefined;
  private readonly shelves = new Map<Principal, Shelf>();

  constructor(
    private readonly limits: StateLimits,
    private readonly now: Now = Date.now,
  ) {}

  get(principal: Principal, key: string): Promise<string | undefined> {
    return promised(() => {
      checkKey(key);
      return this.live(principal, key)?.json;
    });
  }

  set(principal: Principal, key: string, json: string, options?: SetOptions): Promise<void> {
    return promised(() => this.setNow(principal, key, json, options));
  }

  private setNow(principal: Principal, key: string, json: string, options?: SetOptions): void {
    checkKey(key);
    const ttlMs = checkTtl(options);
    checkValue(key, json, this.limits);
    const bytes = entryBytes(key, json);
    const shelf = this.shelves.get(principal) ?? new Shelf();
    const now = this.now();
    // Expired entries weigh nothing: swept before the room is measured.
    shelf.sweep(now);
    checkRoom(key, bytes, shelf.entries.get(key)?.bytes, { keys: shelf.entries.size, bytes: shelf.bytes }, this.limits);
    shelf.put(key, { json, bytes, expiresAt: ttlMs === undefined ? undefined : now + ttlMs });
    this.shelves.set(principal, shelf);
  }

  keys(principal: Principal, prefix = ''): Promise<string[]> {
    return promised(() => {
      const shelf = this.shelves.get(principal);
      if (shelf === undefined) return [];
      shelf.sweep(this.now());
      return [...shelf.entries.keys()].filter((key) => key.startsWith(prefix)).sort();
    });
  }

  remove(principal: Principal, key: string): Promise<boolean> {
    return promised(() => {
      checkKey(key);
      const live = this.live(principal, key) !== undefined;
      this.shelves.get(principal)?.drop(key);
      return live;
    });
  }

  close(): Promise<void> {
    this.shelves.clear();
    return Promise.resolve();
  }

  /** The key's entry while its time to live lasts; an entry past it is dropped. */
  private live(principal: Principal, key: string): Entry | undefined {
    const shelf = this.shelves.get(principal);
    const entry = shelf?.entries.get(key);
    if (entry === undefined || !isOver(entry, this.now())) return entry;
    shelf!.drop(key);
    return undefined;
  }
}
