import type { LogSettings } from '../support/log.js';
import { isLogSettingName, readLogSettingValue } from './log-setting-value.js';
import { readSettingValue } from './setting-value.js';
import {
  EXPOSE_SETTING,
  TYPE_CHECK_SETTING,
  type LogSettingName,
  type SettingLayer,
  type SettingName,
  type LocationSettingName,
  type SwitchSettingName,
  type TypeCheckMode,
} from './settings.js';
import { isSwitchSettingName, readTypeCheck } from './file-settings.js';
import { isLocationSettingName, readLocationSettingValue } from './location-setting-value.js';

/** The setting flags as typed: each by its setting's name (a switch given: `true`), and each `--expose` in order. */
export interface SettingFlags {
  readonly texts: Partial<Record<SettingName | LogSettingName | LocationSettingName | SwitchSettingName | 'typeCheck', string>>;
  readonly expose: readonly string[] | undefined;
}

/**
 * The setting flags, every one read: a number with its unit (`64MiB`, `5s`) checked with
 * `checkSetting`, a log level, a log file or a directory (taken from `cwd` when relative, `~`
 * from `home`), a state URL, the `--expose` globs. Returns what they set, or the message refusing the first bad one.
 */
export function readFlagSettings(flags: SettingFlags, cwd: string, home: string): SettingLayer | { error: string } {
  const settings: Partial<Record<SettingName, number>> & { expose?: string[]; typeCheck?: TypeCheckMode } & Partial<
      Record<LocationSettingName, string>
    > &
    Partial<Record<SwitchSettingName, boolean>> = {};
  const logging: { -readonly [K in keyof LogSettings]?: LogSettings[K] } = {};
  for (const [name, text] of Object.entries(flags.texts)) {
    if (text === undefined) continue;
    if (isSwitchSettingName(name)) {
      settings[name] = true;
      continue;
    }
    if (name === TYPE_CHECK_SETTING.name) {
      const mode = readTypeCheck(text);
      if ('error' in mode) return mode;
      settings.typeCheck = mode.value;
      continue;
    }
    const read = isLogSettingName(name)
      ? readLogSettingValue(name, text, cwd, home)
      : isLocationSettingName(name)
        ? readLocationSettingValue(name, text, cwd, home)
        : readSettingValue(name as SettingName, text);
    if ('error' in read) return read;
    Object.assign(isLogSettingName(name) ? logging : settings, { [name]: read.value });
  }
  if (flags.expose !== undefined && flags.expose.length > 0) {
    if (flags.expose.includes('')) {
      return { error: `--${EXPOSE_SETTING.flag} takes a glob over tool names as scripts see them; got an empty one` };
    }
    settings.expose = [...flags.expose];
  }
  return { settings, logging };
}
