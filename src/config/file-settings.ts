import { EXPOSE_SETTING, SETTINGS, type SettingName, type Settings } from '../settings.js';
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
  const settings: Partial<Record<SettingName, number>> & { expose?: string[] } = {};
  const names = [...Object.keys(SETTINGS), EXPOSE_SETTING.name];
  for (const [name, value] of Object.entries(raw)) {
    const at = formatConfigPath(['settings', name]);
    if (name === EXPOSE_SETTING.name) {
      settings.expose = readExpose(value, (detail) => new ConfigError(file, `${at} ${detail}`));
      continue;
    }
    if (!isSettingName(name)) {
      const guess = findClosestName(name, names);
      const hint = guess === null ? '' : ` (did you mean "${guess}"?)`;
      throw new ConfigError(file, `${at} is not a setting${hint}; the settings are ${names.join(', ')}`);
    }
    const read = readSettingValue(name, value);
    // The code prefix is dropped: the message already starts with this error's own.
    if ('error' in read) throw new ConfigError(file, `${at}: ${read.error.replace(/^SETTING_INVALID: /, '')}`);
    settings[name] = read.value;
  }
  return settings;
}

/** `settings.expose`: a list of globs, each a non-empty string. */
function readExpose(value: unknown, invalid: (detail: string) => ConfigError): string[] {
  if (!Array.isArray(value)) {
    throw invalid(`must be a list of tool-name globs, as in ["search", "github__get_*"] (got ${describeValueType(value)})`);
  }
  value.forEach((glob: unknown, i) => {
    if (typeof glob !== 'string' || glob === '') {
      throw invalid(
        `[${i}] must be a non-empty glob over tool names as scripts see them (got ${glob === '' ? 'an empty string' : describeValueType(glob)})`,
      );
    }
  });
  return [...(value as string[])];
}
