import { PATH_SETTINGS, type PathSettingName } from './settings.js';
import { resolveUserPath } from './user-path.js';

export function isPathSettingName(name: string): name is PathSettingName {
  return Object.hasOwn(PATH_SETTINGS, name);
}

/**
 * A directory setting from a flag or the config file: `~` expanded, taken from `baseDir` when
 * relative (the working directory for a flag, the config file's directory for the file). Returns
 * the absolute path, or the message refusing it (`SETTING_INVALID: ...`).
 */
export function readPathSettingValue(
  name: PathSettingName,
  raw: unknown,
  baseDir: string,
  home: string,
): { value: string } | { error: string } {
  const spec = PATH_SETTINGS[name];
  if (typeof raw !== 'string' || raw.trim() === '') {
    const got = typeof raw === 'string' ? JSON.stringify(raw) : `a ${raw === null ? 'null' : typeof raw}`;
    return { error: `SETTING_INVALID: ${name} (--${spec.flag}) takes the path of a directory; got ${got}` };
  }
  return { value: resolveUserPath(raw, baseDir, home) };
}
