import { DEFAULT_SETTINGS, type Settings } from './settings.js';

/** Defaults, then the config file's `settings`, then flags: each later layer wins where it names a setting (`expose` whole). */
export function mergeSettings(fromFile: Partial<Settings>, fromFlags: Partial<Settings>): Settings {
  const merged: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  for (const layer of [fromFile, fromFlags]) {
    for (const [name, value] of Object.entries(layer)) {
      if (value !== undefined) merged[name] = value;
    }
  }
  return merged as Settings;
}
