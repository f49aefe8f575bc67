/**
 * The tokenizer's vault in files, under `<stateDir>/tokens/` (beside the principals' folders, whose
 * names are 64 hex digits, so never `tokens`): a 0700 folder per space, named by the SHA-256 of
 * the space, a 0600 file per entry holding the value, its modification time set to when it expires
 * (a renewal sets it again; nothing is rewritten), and a name per key: an entry's keys are hard
 * links to one file, so one write and one renewal serve them all. A file is written whole under a
 * temporary name, then linked into place under each key: a link fails when the key's file exists,
 * which is the write that succeeds only where the key is absent (an expired file is deleted first,
 * then the link tried again).
 *
 * A counter is a chain of steps in the space's `counters/` folder: the file `<counter>@<n>` holds
 * the count the step from n went to. Numbers n+1 to m are taken by linking the step `@n` (holding
 * m) into place; only one instance can, and the others read where it went and step on from there.
 * The count is what the highest step holds. Steps below the one an instance has just taken are
 * deleted, the highest never; a step written again from a count read long ago (its first one
 * deleted since) is caught by looking again, as a step above it, and goes unused.
 */
import {
  closeSync,
  fstatSync,
  futimesSync,
  linkSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { link, mkdir, open, readdir, readFile, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { DIR_MODE, FILE_MODE, onStateDir, tempPathIn, writeSyncedTemp } from './dir-files.js';
import { StateError } from './state-error.js';
import { digestName, type Now } from './state-store.js';
import { ADDED, checkVaultKey, type NewVaultEntry, type VaultEntry, type VaultStore } from './vault-store.js';

const COUNTERS = 'counters';
/**
 * 256 keys a touch, 32 entries an add: what one turn of the event loop does before it lets others
 * in. An entry's few system calls are made synchronously (a promise and a thread pool hop each
 * cost ten times the call on a local disk), a slice at a time, so a batch of thousands doesn't
 * hold the loop for its whole length.
 */
const TOUCH_SLICE = 256;
const ADD_SLICE = 32;
/** 32: from this many keys, touch() lists the folder once rather than open each key's file, absent or not. */
const LIST_FROM_KEYS = 32;

/**
 * 1,000: the most steps one reserve() tries while other instances take numbers of the same counter
 * (each failed try is another's number taken); past it, STATE_UNAVAILABLE (try again).
 */
export const RESERVE_MAX_ATTEMPTS = 1_000;

function isCode(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException).code === code;
}

/** Runs `work`, a missing file (ENOENT) answered by `absent`. */
async function orAbsent<T>(work: () => Promise<T>, absent: T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isCode(error, 'ENOENT')) return absent;
    throw error;
  }
}

/** `work` on each item, a slice at a time, the event loop let go between slices. */
async function inSlices<T, R>(items: readonly T[], slice: number, work: (item: T) => R): Promise<R[]> {
  const out: R[] = [];
  for (let from = 0; from < items.length; from += slice) {
    if (from > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const item of items.slice(from, from + slice)) out.push(work(item));
  }
  return out;
}

function unlinkIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (!isCode(error, 'ENOENT')) throw error;
  }
}

/** Links `temp` as `path` unless `path` exists: whether it did. */
function linkNewNow(temp: string, path: string): boolean {
  try {
    linkSync(temp, path);
    return true;
  } catch (error) {
    if (isCode(error, 'EEXIST')) return false;
    throw error;
  }
}

/** The counter's steps in `names`: the counts they were taken from. */
function stepsOf(names: readonly string[], counter: string): number[] {
  const prefix = `${counter}@`;
  return names
    .filter((name) => name.startsWith(prefix))
    .map((name) => Number(name.slice(prefix.length)))
    .filter((n) => Number.isSafeInteger(n));
}

export class DirVaultStore implements VaultStore {
  constructor(
    /** The state directory: the vault is its `tokens/` folder. */
    private readonly stateDir: string,
    private readonly now: Now = Date.now,
  ) {}

  async touch(space: string, keys: readonly string[], ttlMs: number): Promise<Array<string | undefined>> {
    keys.forEach(checkVaultKey);
    return this.guard(async () => {
      const folder = this.folder(space);
      const expires = new Date(this.now() + ttlMs);
      // Many keys at once: one listing spares an open that fails for each absent one.
      const listed = keys.length < LIST_FROM_KEYS ? undefined : new Set(await orAbsent(() => readdir(folder), []));
      return inSlices(keys, TOUCH_SLICE, (key) =>
        listed !== undefined && !listed.has(key) ? undefined : this.touchNow(join(folder, key), expires),
      );
    });
  }

  async add(space: string, entries: readonly NewVaultEntry[], ttlMs: number): Promise<number[]> {
    for (const { keys } of entries) keys.forEach(checkVaultKey);
    return this.guard(async () => {
      if (entries.length === 0) return [];
      const folder = this.folder(space);
      await mkdir(folder, { recursive: true, mode: DIR_MODE });
      const expires = new Date(this.now() + ttlMs);
      return inSlices(entries, ADD_SLICE, (entry) => this.addNow(folder, entry, expires));
    });
  }

  async remove(space: string, keys: readonly string[]): Promise<void> {
    keys.forEach(checkVaultKey);
    return this.guard(async () => {
      await Promise.all(keys.map((key) => orAbsent(() => unlink(this.entryPath(space, key)), undefined)));
    });
  }

  async reserve(space: string, counter: string, count: number): Promise<number> {
    checkVaultKey(counter);
    return this.guard(async () => {
      const folder = join(this.folder(space), COUNTERS);
      await mkdir(folder, { recursive: true, mode: DIR_MODE });
      let from = await this.countOf(folder, counter);
      for (let attempt = 0; attempt < RESERVE_MAX_ATTEMPTS; attempt++) {
        const step = join(folder, `${counter}@${from}`);
        if (!(await this.writeNew(folder, step, String(from + count)))) {
          // Another instance stepped from here first: on from where it went.
          from =
            (await orAbsent(async () => Number(await readFile(step, 'utf8')), undefined)) ??
            (await this.countOf(folder, counter));
          continue;
        }
        const steps = stepsOf(await readdir(folder), counter);
        // A step above ours: ours was written again from a count read long ago (or another stepped on
        // from it already); either way these numbers may be another's, so ours goes unused.
        if (steps.some((n) => n > from)) {
          from = await this.countOf(folder, counter);
          continue;
        }
        await Promise.all(
          steps.filter((n) => n < from).map((n) => orAbsent(() => unlink(join(folder, `${counter}@${n}`)), undefined)),
        );
        return from + 1;
      }
      throw new StateError(
        'STATE_UNAVAILABLE',
        `the tokens' counter ${counter} in ${this.stateDir} changed under ${RESERVE_MAX_ATTEMPTS} attempts in a row ` +
          'to take a number (other instances taking numbers at once); try again',
      );
    });
  }

  async overflow(space: string, prefix: string, keep: number): Promise<VaultEntry[]> {
    return this.guard(async () => {
      const folder = this.folder(space);
      const names = await orAbsent(() => readdir(folder), []);
      const now = this.now();
      const keys = names.filter((name) => name !== COUNTERS && !name.startsWith('.'));
      const expiries = await Promise.all(
        keys.map((key) => orAbsent(async () => (await stat(join(folder, key))).mtimeMs, undefined)),
      );
      const live: Array<{ key: string; expires: number }> = [];
      const over: string[] = [];
      keys.forEach((key, i) => {
        const expires = expiries[i];
        if (expires === undefined) return;
        if (expires <= now) over.push(key);
        else if (key.startsWith(prefix)) live.push({ key, expires });
      });
      await Promise.all(over.map((key) => this.unlinkIfExpired(join(folder, key), now)));
      if (live.length <= keep) return [];
      live.sort((a, b) => a.expires - b.expires);
      const oldest = live.slice(0, live.length - keep);
      const values = await Promise.all(oldest.map(({ key }) => this.readLive(join(folder, key))));
      return oldest.flatMap(({ key }, i) => (values[i] === undefined ? [] : [{ key, value: values[i] }]));
    });
  }

  async drop(space: string): Promise<void> {
    return this.guard(() => rm(this.folder(space), { recursive: true, force: true }));
  }

  private folder(space: string): string {
    return join(this.stateDir, 'tokens', digestName(space));
  }

  private entryPath(space: string, key: string): string {
    return join(this.folder(space), key);
  }

  /** The counter's count: what its highest step holds (0 before any). */
  private async countOf(folder: string, counter: string): Promise<number> {
    for (;;) {
      const steps = stepsOf(await readdir(folder), counter);
      if (steps.length === 0) return 0;
      const top = steps.reduce((a, b) => Math.max(a, b));
      const count = await orAbsent(async () => Number(await readFile(join(folder, `${counter}@${top}`), 'utf8')), undefined);
      // Deleted between the listing and the read: a higher step stands now.
      if (count !== undefined) return count;
    }
  }

  /** `work` on the file while it is live (opened, so a file linked into place meanwhile is not mixed in); undefined otherwise. */
  private withLive<T>(path: string, work: (file: FileHandle) => Promise<T>): Promise<T | undefined> {
    return orAbsent(async () => {
      const file = await open(path, 'r');
      try {
        if ((await file.stat()).mtimeMs <= this.now()) return undefined;
        return await work(file);
      } finally {
        await file.close();
      }
    }, undefined);
  }

  private readLive(path: string): Promise<string | undefined> {
    return this.withLive(path, (file) => file.readFile('utf8'));
  }

  /** The live file's value, its time to live renewed (read through one descriptor, so a file linked in meanwhile is not mixed in). */
  private touchNow(path: string, expires: Date): string | undefined {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (error) {
      if (isCode(error, 'ENOENT')) return undefined;
      throw error;
    }
    try {
      if (fstatSync(fd).mtimeMs <= this.now()) return undefined;
      futimesSync(fd, expires, expires);
      return readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  }

  /** One file, linked under each key in turn; a key taken unlinks those linked before it. */
  private addNow(folder: string, { keys, value }: NewVaultEntry, expires: Date): number {
    const temp = tempPathIn(folder);
    const fd = openSync(temp, 'wx', FILE_MODE);
    try {
      try {
        writeFileSync(fd, value);
        futimesSync(fd, expires, expires);
      } finally {
        closeSync(fd);
      }
      for (const [k, key] of keys.entries()) {
        if (this.linkUnlessLive(temp, join(folder, key))) continue;
        for (const linked of keys.slice(0, k)) unlinkIfThere(join(folder, linked));
        return k;
      }
      return ADDED;
    } finally {
      unlinkIfThere(temp);
    }
  }

  /** Links `temp` as `path` unless a live file is there (an expired one gives way): whether it did. */
  private linkUnlessLive(temp: string, path: string): boolean {
    if (linkNewNow(temp, path)) return true;
    let expires: number;
    try {
      expires = statSync(path).mtimeMs;
    } catch (error) {
      if (!isCode(error, 'ENOENT')) throw error;
      return linkNewNow(temp, path);
    }
    if (expires > this.now()) return false;
    // Past its time: it gives way. Two instances replacing one expired key at once may each delete
    // and link; then both entries were written, and the vault reads back whichever stands.
    unlinkIfThere(path);
    return linkNewNow(temp, path);
  }

  /**
   * Writes `content` as `path` unless `path` exists (whether it did): whole under a temporary
   * name, synced, then linked into place, so a reader never sees part of it, nor a crash loses it.
   */
  private async writeNew(folder: string, path: string, content: string): Promise<boolean> {
    const temp = await writeSyncedTemp(folder, content);
    try {
      return await this.linkNew(temp, path);
    } finally {
      await orAbsent(() => unlink(temp), undefined);
    }
  }

  /** Links `temp` as `path` unless `path` exists: whether it did. */
  private linkNew(temp: string, path: string): Promise<boolean> {
    return link(temp, path).then(
      () => true,
      (error: unknown) => {
        if (isCode(error, 'EEXIST')) return false;
        throw error;
      },
    );
  }

  /**
   * Deletes `path` when it is past its time (or gone already): whether it is gone. Two instances
   * replacing one expired key at once may each delete and link; then both entries were written,
   * and the vault reads back whichever stands (src/tokenize/stored-vault.ts).
   */
  private async unlinkIfExpired(path: string, now: number): Promise<boolean> {
    const expires = await orAbsent(async () => (await stat(path)).mtimeMs, undefined);
    if (expires !== undefined && expires > now) return false;
    await orAbsent(() => unlink(path), undefined);
    return true;
  }

  /** `work` on the directory: a file system's failure as STATE_UNAVAILABLE (onStateDir). */
  private guard<T>(work: () => Promise<T>): Promise<T> {
    return onStateDir(this.stateDir, " for the tokens' vault", work);
  }
}
