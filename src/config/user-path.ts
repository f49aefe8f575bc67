import { resolve } from 'node:path';

/** A path a user typed: `~` and `~/...` as a shell would expand them (clients start us without a shell), then taken from `baseDir`. */
export function resolveUserPath(path: string, baseDir: string, home: string): string {
  const expanded = path === '~' ? home : path.startsWith('~/') ? `${home}${path.slice(1)}` : path;
  return resolve(baseDir, expanded);
}
