/**
 * State in files under `--state-dir`, so it survives a restart, and two servers sharing the
 * directory see each other's writes. The directory is made 0700, each principal has a 0700
 * folder of its own, each key a 0600 file. A file is named by the SHA-256 of its key, so any key
 * (`../x`, a slash, 512 characters of Unicode) is a safe name of fixed length; the principal's
 * folder likewise. A write goes to a temporary file in the same folder, then is renamed over the
 * key's file: a reader sees the old entry or the new, never part of one; the last rename wins.
 *
 * A file holds a fixed header line (`<expiresAt, 15 digits, 0 for none> <key bytes, 5 digits>`),
 * then the key, then the value's JSON, so a file's size less the header is what the entry weighs
 * (entryBytes): the room left is measured from the folder's listing and sizes alone. An entry past
 * its time to live is never returned, and is deleted by `keys()`, or by a write that needs its room.
 */
import { mkdir, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { checkKey, checkRoom, checkTtl, checkValue, entryBytes } from './entry-checks.js';
import { DIR_MODE, onStateDir, writeSyncedTemp } from './dir-files.js';
import { DirVaultStore } from './dir-vault-store.js';
import { StateError } from './state-error.js';
import { digestName, type Now, type Principal, type SetOptions, type StateLimits, type StateStore } from './state-store.js';
import type { VaultStore } from './vault-store.js';

const EXPIRY_DIGITS = 15;
const KEY_BYTES_DIGITS = 5;
/** `<expiresAt> <key bytes>\n` */
const HEADER_BYTES = EXPIRY_DIGITS + 1 + KEY_BYTES_DIGITS + 1;
const ENTRY_NAME = /^[0-9a-f]{64}$/;

interface StoredEntry {
  readonly key: string;
  /** Epoch milliseconds; 0: no time to live. */
  readonly expiresAt: number;
  readonly json: string;
}

function encodeEntry(key: string, json: string, expiresAt: number): Buffer {
  const keyBytes = Buffer.from(key);
  const header = `${String(expiresAt).padStart(EXPIRY_DIGITS, '0')} ${String(keyBytes.length).padStart(KEY_BYTES_DIGITS, '0')}\n`;
  return Buffer.concat([Buffer.from(header), keyBytes, Buffer.from(json)]);
}

/** A file's entry, or undefined for a file that isn't one (left alone). */
function decodeEntry(bytes: Buffer): StoredEntry | undefined {
  const header = /^(\d{15}) (\d{5})\n$/.exec(bytes.subarray(0, HEADER_BYTES).toString('latin1'));
  if (header === null) return undefined;
  const keyEnd = HEADER_BYTES + Number(header[2]);
  if (keyEnd > bytes.length) return undefined;
  return {
    expiresAt: Number(header[1]),
    key: bytes.subarray(HEADER_BYTES, keyEnd).toString('utf8'),
    json: bytes.subarray(keyEnd).toString('utf8'),
  };
}

function isOver(expiresAt: number, now: number): boolean {
  return expiresAt !== 0 && expiresAt <= now;
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

export class DirStateStore implements StateStore {
  readonly vaultStore: VaultStore;

  constructor(
    private readonly dir: string,
    private readonly limits: StateLimits,
    private readonly now: Now = Date.now,
  ) {
    this.vaultStore = new DirVaultStore(dir, now);
  }

  get(principal: Principal, key: string): Promise<string | undefined> {
    return this.guard(() => this.getNow(principal, key));
  }

  set(principal: Principal, key: string, json: string, options?: SetOptions): Promise<void> {
    return this.guard(() => this.setNow(principal, key, json, options));
  }

  keys(principal: Principal, prefix = ''): Promise<string[]> {
    return this.guard(async () => (await this.sweep(this.folder(principal))).filter((key) => key.startsWith(prefix)).sort());
  }

  remove(principal: Principal, key: string): Promise<boolean> {
    return this.guard(() => this.removeNow(principal, key));
  }

  async close(): Promise<void> {}

  /** `work` on the directory: a file system's failure as STATE_UNAVAILABLE (onStateDir). */
  private guard<T>(work: () => Promise<T>): Promise<T> {
    return onStateDir(this.dir, '', work);
  }

  private async getNow(principal: Principal, key: string): Promise<string | undefined> {
    checkKey(key);
    const entry = await this.read(this.entryPath(principal, key));
    return entry === undefined || isOver(entry.expiresAt, this.now()) ? undefined : entry.json;
  }

  private async setNow(principal: Principal, key: string, json: string, options?: SetOptions): Promise<void> {
    checkKey(key);
    const ttlMs = checkTtl(options);
    checkValue(key, json, this.limits);
    const folder = this.folder(principal);
    const path = join(folder, digestName(key));
    const bytes = entryBytes(key, json);
    try {
      this.checkRoom(key, bytes, await this.measure(folder, path));
    } catch (error) {
      if (!(error instanceof StateError)) throw error;
      // Entries past their time to live still take room on disk until swept: sweep, then measure again.
      await this.sweep(folder);
      this.checkRoom(key, bytes, await this.measure(folder, path));
    }
    const now = this.now();
    await this.writeAtomically(folder, path, encodeEntry(key, json, ttlMs === undefined ? 0 : now + ttlMs));
  }

  private async removeNow(principal: Principal, key: string): Promise<boolean> {
    checkKey(key);
    const path = this.entryPath(principal, key);
    const entry = await this.read(path);
    if (entry === undefined) return false;
    await unlink(path).catch((error: unknown) => {
      if (!isMissing(error)) throw error;
    });
    return !isOver(entry.expiresAt, this.now());
  }

  private folder(principal: Principal): string {
    return join(this.dir, digestName(principal));
  }

  private entryPath(principal: Principal, key: string): string {
    return join(this.folder(principal), digestName(key));
  }

  private checkRoom(key: string, bytes: number, measured: { keys: number; bytes: number; replaced: number | undefined }): void {
    checkRoom(key, bytes, measured.replaced, measured, this.limits);
  }

  /** The folder's entries by their files' sizes (expired ones included), and the size of `path`'s. */
  private async measure(folder: string, path: string): Promise<{ keys: number; bytes: number; replaced: number | undefined }> {
    let keys = 0;
    let bytes = 0;
    let replaced: number | undefined;
    for (const name of await this.entryNames(folder)) {
      const size = await stat(join(folder, name)).then(
        (stats) => stats.size - HEADER_BYTES,
        (error: unknown) => {
          if (isMissing(error)) return undefined;
          throw error;
        },
      );
      if (size === undefined) continue;
      keys += 1;
      bytes += size;
      if (join(folder, name) === path) replaced = size;
    }
    return { keys, bytes, replaced };
  }

  /** Deletes the folder's entries past their time to live; returns the live entries' keys. */
  private async sweep(folder: string): Promise<string[]> {
    const now = this.now();
    const live: string[] = [];
    for (const name of await this.entryNames(folder)) {
      const path = join(folder, name);
      const entry = await this.read(path);
      if (entry === undefined) continue;
      if (!isOver(entry.expiresAt, now)) live.push(entry.key);
      else await this.unlinkIfSame(path, entry.expiresAt);
    }
    return live;
  }

  /**
   * Deletes an expired entry's file unless a write replaced it since it was read: the file is read
   * again just before, and a concurrent write lands between the two only within that moment.
   */
  private async unlinkIfSame(path: string, expiresAt: number): Promise<void> {
    const again = await this.read(path);
    if (again === undefined || again.expiresAt !== expiresAt) return;
    await unlink(path).catch((error: unknown) => {
      if (!isMissing(error)) throw error;
    });
  }

  private async entryNames(folder: string): Promise<string[]> {
    try {
      return (await readdir(folder)).filter((name) => ENTRY_NAME.test(name));
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
  }

  private async read(path: string): Promise<StoredEntry | undefined> {
    try {
      return decodeEntry(await readFile(path));
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  private async writeAtomically(folder: string, path: string, content: Buffer): Promise<void> {
    // recursive: the state directory itself is made too, 0700, the first time anything is stored.
    await mkdir(folder, { recursive: true, mode: DIR_MODE });
    const temp = await writeSyncedTemp(folder, content);
    try {
      await rename(temp, path);
    } catch (error) {
      // The rename's own error is what the caller needs; the temp file goes if it can.
      await unlink(temp).catch(() => {});
      throw error;
    }
  }
}
