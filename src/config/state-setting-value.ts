import { STATE_SETTINGS, type StateSettingName } from './settings.js';
import { resolveUserPath } from './user-path.js';

export function isStateSettingName(name: string): name is StateSettingName {
  return Object.hasOwn(STATE_SETTINGS, name);
}

/** The URL schemes a Redis or Valkey server is reached at (rediss: over TLS). */
const REDIS_SCHEMES = ['redis:', 'rediss:'];

/**
 * stateDir or stateUrl from a flag or the config file. A directory may start with `~` and is taken
 * from `baseDir` when relative (as a log file is); a URL must be redis:// or rediss://. Returns the
 * value, or the message refusing it (`SETTING_INVALID: ...`).
 */
export function readStateSettingValue(
  name: StateSettingName,
  raw: unknown,
  baseDir: string,
  home: string,
): { value: string } | { error: string } {
  const spec = STATE_SETTINGS[name];
  const got = typeof raw === 'string' ? JSON.stringify(raw) : `a ${raw === null ? 'null' : typeof raw}`;
  if (name === 'stateDir') {
    if (typeof raw !== 'string' || raw.trim() === '') {
      return { error: `SETTING_INVALID: ${name} (--${spec.flag}) takes the path of a directory to keep state in; got ${got}` };
    }
    return { value: resolveUserPath(raw, baseDir, home) };
  }
  const url = typeof raw === 'string' && URL.canParse(raw) ? new URL(raw) : undefined;
  if (url !== undefined && REDIS_SCHEMES.includes(url.protocol)) return { value: raw as string };
  // A URL may carry a password: only its scheme is quoted back.
  const shown = url !== undefined ? `a ${url.protocol} URL` : typeof raw === 'string' ? 'text that is not a URL' : got;
  return {
    error: `SETTING_INVALID: ${name} (--${spec.flag}) takes a redis:// or rediss:// URL, as in redis://localhost:6379; got ${shown}`,
  };
}
