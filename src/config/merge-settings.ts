import { DEFAULT_SETTINGS, type SettingName, type Settings } from '../settings.js';

/** Defaults, then the config file's `settings`, then flags: each later layer wins where it names a setting. */
export function mergeSettings(fromFile: Partial<Settings>, fromFlags: Partial<Settings>): Settings {
  const merged: Record<SettingName, number> = { ...DEFAULT_SETTINGS };
  for (const layer of [fromFile, fromFlags]) {
    for (const [name, value] of Object.entries(layer) as [SettingName, number | undefined][]) {
      if (value !== undefined) merged[name] = value;
    }
  }
  return merged;
}
