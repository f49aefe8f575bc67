/**
 * The tokenizer's vault in files, under `<stateDir>/tokens/` (beside the principals' folders, whose
 * names are 64 hex digits, so never `tokens`): a 0700 folder per space, named by the SHA-256 of
 * the space, a 0600 file per key holding the value, its modification time set to when it expires
 * (a renewal sets it again; nothing is rewritten). A file is written whole under a temporary name,
 * then linked into place: the link fails when the key's file exists, which is the write that
 * succeeds only where the key is absent (an expired file is deleted first, then the link tried again).
 *
 * A counter is a chain of steps in the space's `counters/` folder: the file `<counter>@<n>` holds
 * the count the step from n went to. Numbers n+1 to m are taken by linking the step `@n` (holding
 * m) into place; only one instance can, and the others read where it went and step on from there.
 * The count is what the highest step holds. Steps below the one an instance has just taken are
 * deleted, the highest never; a step written again from a count read long ago (its first one
 * deleted since) is caught by looking again, as a step above it, and goes unused.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readdir, readFile, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { StateError } from './state-error.js';
import { digestName, type Now } from './state-store.js';
import { checkVaultKey, type VaultEntry, type VaultStore } from './vault-store.js';

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
const COUNTERS = 'counters';

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
    return this.guard(() => {
      const expires = new Date(this.now() + ttlMs);
      return Promise.all(
        keys.map((key) =>
          this.withLive(this.entryPath(space, key), async (file) => {
            await file.utimes(expires, expires);
            return file.readFile('utf8');
          }),
        ),
      );
    });
  }

  async add(space: string, entries: readonly VaultEntry[], ttlMs: number): Promise<boolean[]> {
    for (const { key } of entries) checkVaultKey(key);
    return this.guard(async () => {
      if (entries.length === 0) return [];
      const folder = this.folder(space);
      await mkdir(folder, { recursive: true, mode: DIR_MODE });
      const expires = new Date(this.now() + ttlMs);
      return Promise.all(entries.map((entry) => this.addOne(folder, entry, expires)));
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
        if (!(await this.writeNew(folder, step, String(from + count), true))) {
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

  private async addOne(folder: string, { key, value }: VaultEntry, expires: Date): Promise<boolean> {
    const path = join(folder, key);
    if (await this.writeNew(folder, path, value, false, expires)) return true;
    // The key's file is there: live, it stands; past its time, it gives way.
    if (!(await this.unlinkIfExpired(path, this.now()))) return false;
    return this.writeNew(folder, path, value, false, expires);
  }

  /**
   * Writes `content` as `path` unless `path` exists (whether it did): whole under a temporary name,
   * then linked into place, so a reader never sees part of it. `sync`: on disk before it counts.
   */
  private async writeNew(folder: string, path: string, content: string, sync: boolean, expires?: Date): Promise<boolean> {
    const temp = join(folder, `.${randomBytes(8).toString('hex')}.tmp`);
    try {
      const file = await open(temp, 'wx', FILE_MODE);
      try {
        await file.writeFile(content);
        if (expires !== undefined) await file.utimes(expires, expires);
        if (sync) await file.sync();
      } finally {
        await file.close();
      }
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

  /** A file system's failure as STATE_UNAVAILABLE (as the state's own directory store words it). */
  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof StateError) throw error;
      throw new StateError(
        'STATE_UNAVAILABLE',
        `the state directory ${this.stateDir} could not be read or written for the tokens' vault ` +
          `(${error instanceof Error ? error.message : String(error)}); fix the directory or free space, then try again`,
      );
    }
  }
}
