import { LOCATION_SETTINGS, type LocationSettingName } from './settings.js';
import { describeFound } from '../support/echo.js';
import { resolveUserPath } from './user-path.js';

export function isLocationSettingName(name: string): name is LocationSettingName {
  return Object.hasOwn(LOCATION_SETTINGS, name);
}

/** The URL schemes a Redis or Valkey server is reached at (rediss: over TLS). */
const REDIS_SCHEMES = ['redis:', 'rediss:'];

/**
 * stateDir, stateUrl, skillsDir, httpTokensFile or auditLog from a flag or the config file. A path may start with `~`
 * and is taken from `baseDir` when relative (the working directory for a flag, the config file's
 * directory for the file, as a log file is); a URL must be redis:// or rediss://. Returns the
 * value, or the message refusing it (`SETTING_INVALID: ...`).
 */
export function readLocationSettingValue(
  name: LocationSettingName,
  raw: unknown,
  baseDir: string,
  home: string,
): { value: string } | { error: string } {
  const spec = LOCATION_SETTINGS[name];
  const got = describeFound(raw);
  if (spec.kind !== 'redis-url') {
    if (typeof raw !== 'string' || raw.trim() === '') {
      return {
        error: `SETTING_INVALID: ${name} (--${spec.flag}) takes the path of a ${spec.kind === 'file' ? 'file' : 'directory'} ${spec.what}; got ${got}`,
      };
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
