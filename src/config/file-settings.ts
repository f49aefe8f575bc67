import { SETTINGS, type SettingName, type Settings } from '../settings.js';
import { findClosestName } from './closest-name.js';
import { ConfigError, describeValueType, formatConfigPath } from './config-error.js';
import { isSettingName, readSettingValue } from './setting-value.js';

/**
 * The config file's `settings` object: fields named as in `SETTINGS`, each a number or a string
 * with a unit (`"64MiB"`, `"5s"`), each checked with `checkSetting`. Throws `ConfigError`.
 */
export function readFileSettings(raw: unknown, file: string | null): Partial<Settings> {
  if (raw === undefined) return {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(file, `settings must be an object (got ${describeValueType(raw)})`);
  }
  const settings: Partial<Record<SettingName, number>> = {};
  for (const [name, value] of Object.entries(raw)) {
    const at = formatConfigPath(['settings', name]);
    if (!isSettingName(name)) {
      const guess = findClosestName(name, Object.keys(SETTINGS));
      const hint = guess === null ? '' : ` (did you mean "${guess}"?)`;
      throw new ConfigError(file, `${at} is not a setting${hint}; the settings are ${Object.keys(SETTINGS).join(', ')}`);
    }
    const read = readSettingValue(name, value);
    // The code prefix is dropped: the message already starts with this error's own.
    if ('error' in read) throw new ConfigError(file, `${at}: ${read.error.replace(/^SETTING_INVALID: /, '')}`);
    settings[name] = read.value;
  }
  return settings;
}
