import { LOG_LEVELS, type LogLevel, type LogSettings } from '../support/log.js';
import { describeFound } from '../support/echo.js';
import { LOG_SETTINGS, type LogSettingName } from './settings.js';
import { closestName } from '../../common/closest-names.js';
import { resolveUserPath } from './user-path.js';

export function isLogSettingName(name: string): name is LogSettingName {
  return Object.hasOwn(LOG_SETTINGS, name);
}

/**
 * logLevel or logFile from a flag or the config file. A log file's path may start with `~` and is
 * taken from `baseDir` when relative (the working directory for a flag, the config file's directory
 * for the file, since a client starts us wherever it likes). Returns the value, or the message
 * refusing it (`SETTING_INVALID: ...`).
 */
export function readLogSettingValue<K extends LogSettingName>(
  name: K,
  raw: unknown,
  baseDir: string,
  home: string,
): { value: LogSettings[K] } | { error: string } {
  const spec = LOG_SETTINGS[name];
  const got = describeFound(raw);
  if (name === 'logLevel') {
    if (typeof raw === 'string' && (LOG_LEVELS as readonly string[]).includes(raw)) return { value: raw as LogLevel };
    const guess = typeof raw === 'string' ? closestName(raw, LOG_LEVELS) : null;
    const hint = guess === null ? '' : ` (did you mean "${guess}"?)`;
    return { error: `SETTING_INVALID: ${name} (--${spec.flag}) takes one of ${LOG_LEVELS.join(', ')}; got ${got}${hint}` };
  }
  if (typeof raw !== 'string' || raw.trim() === '') {
    return { error: `SETTING_INVALID: ${name} (--${spec.flag}) takes the path of a file to append the log to; got ${got}` };
  }
  return { value: resolveUserPath(raw, baseDir, home) as LogSettings[K] };
}
