import type { ReadPlace, SettingIssue } from './setting-spec.js';
import { readSettingsObject, settingNamed } from './read-settings.js';
import type { SettingLayer } from './settings.js';

/** The setting flags as typed, by setting name: each value in order (none for a switch given). */
export type SettingFlags = Readonly<Record<string, readonly string[]>>;

/**
 * The setting flags, read as the config file's fields are (a relative path taken from the
 * working directory, in `place`): what they set, or the first problem.
 */
export function readFlagSettings(flags: SettingFlags, place: ReadPlace): { layer: SettingLayer } | { issue: SettingIssue } {
  const raw: Record<string, unknown> = {};
  for (const [name, texts] of Object.entries(flags)) {
    const value = settingNamed(name)?.flagValue(texts) ?? { raw: texts };
    if ('message' in value) return { issue: { path: [name], code: 'SETTING_INVALID', message: value.message } };
    raw[name] = value.raw;
  }
  return readSettingsObject(raw, place);
}
