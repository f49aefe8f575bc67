import { homedir } from 'node:os';
import { dirname } from 'node:path';
import type { LogSettings } from '../support/log.js';
import {
  APPROVALS_SETTING,
  APPROVAL_FALLBACK_SETTING,
  EXPOSE_SETTING,
  LOG_SETTINGS,
  SETTINGS,
  SKILLS_SAVE_SETTING,
  SWITCH_SETTINGS,
  LOCATION_SETTINGS,
  TYPE_CHECK_SETTING,
  type SwitchSettingName,
  type LogSettingName,
  type SettingLayer,
  type SettingName,
  type LocationSettingName,
  type ApprovalFallback,
  type TypeCheckMode,
} from './settings.js';
import type { ApprovalGlobs } from './types.js';
import { closestName } from '../../common/closest-names.js';
import { ConfigError, describeValueType, formatConfigPath } from './config-error.js';
import { isLogSettingName, readLogSettingValue } from './log-setting-value.js';
import { isSettingName, readSettingValue } from './setting-value.js';
import { isLocationSettingName, readLocationSettingValue } from './location-setting-value.js';

const ALL_NAMES = [
  ...Object.keys(SETTINGS),
  EXPOSE_SETTING.name,
  SKILLS_SAVE_SETTING.name,
  APPROVALS_SETTING.name,
  APPROVAL_FALLBACK_SETTING.name,
  TYPE_CHECK_SETTING.name,
  ...Object.keys(SWITCH_SETTINGS),
  ...Object.keys(LOG_SETTINGS),
  ...Object.keys(LOCATION_SETTINGS),
];

/**
 * The config file's `settings` object, every field read in one pass, the first bad one throwing
 * `ConfigError`: those named as in `SETTINGS`, each a number or a string with a unit (`"64MiB"`,
 * `"5s"`) checked with `checkSetting`; `expose`, a list of globs; `approvals`, lists of globs under
 * allow, ask and deny; `approvalFallback`, refuse or allow; `skillsSaveOverHttp` and the switches (`otel`, ...), true or false; `logLevel` and `logFile` (a
 * relative log file is taken from the config file's directory); `stateDir` and `skillsDir` (likewise)
 * and `stateUrl`.
 */
export function readFileSettings(raw: unknown, file: string | null): SettingLayer {
  const settings: Partial<Record<SettingName, number>> & {
    expose?: string[];
    skillsSaveOverHttp?: boolean;
    approvals?: ApprovalGlobs;
    approvalFallback?: ApprovalFallback;
    typeCheck?: TypeCheckMode;
  } & Partial<Record<SwitchSettingName, boolean>> &
    Partial<Record<LocationSettingName, string>> = {};
  const logging: { -readonly [K in LogSettingName]?: LogSettings[K] } = {};
  const baseDir = file === null ? process.cwd() : dirname(file);
  for (const [name, value] of settingEntries(raw, file)) {
    if (name === EXPOSE_SETTING.name) {
      const at = formatConfigPath(['settings', name]);
      settings.expose = readExpose(value, (detail) => new ConfigError(file, `${at} ${detail}`));
    } else if (name === APPROVALS_SETTING.name) {
      settings.approvals = readApprovals(
        value,
        (detail) => new ConfigError(file, `${formatConfigPath(['settings', name])}${detail}`),
      );
    } else if (name === APPROVAL_FALLBACK_SETTING.name) {
      const choices: readonly unknown[] = APPROVAL_FALLBACK_SETTING.choices;
      if (!choices.includes(value)) {
        throw new ConfigError(
          file,
          `${formatConfigPath(['settings', name])} must be "refuse" or "allow" (got ${typeof value === 'string' ? JSON.stringify(value) : describeValueType(value)})`,
        );
      }
      settings.approvalFallback = value as ApprovalFallback;
    } else if (name === TYPE_CHECK_SETTING.name) {
      const read = readTypeCheck(value);
      if ('error' in read) throw settingError(file, name, read.error);
      settings.typeCheck = read.value;
    } else if (name === SKILLS_SAVE_SETTING.name || isSwitchSettingName(name)) {
      if (typeof value !== 'boolean') {
        throw new ConfigError(
          file,
          `${formatConfigPath(['settings', name])} must be true or false (got ${describeValueType(value)})`,
        );
      }
      settings[name] = value;
    } else if (isLogSettingName(name)) {
      const read = readLogSettingValue(name, value, baseDir, homedir());
      if ('error' in read) throw settingError(file, name, read.error);
      Object.assign(logging, { [name]: read.value });
    } else if (isLocationSettingName(name)) {
      const read = readLocationSettingValue(name, value, baseDir, homedir());
      if ('error' in read) throw settingError(file, name, read.error);
      settings[name] = read.value;
    } else if (isSettingName(name)) {
      const read = readSettingValue(name, value);
      if ('error' in read) throw settingError(file, name, read.error);
      settings[name] = read.value;
    }
  }
  return { settings, logging };
}

/** `typeCheck`, from the config file or `--type-check`: error, warn or off. */
export function readTypeCheck(value: unknown): { value: TypeCheckMode } | { error: string } {
  const choices: readonly unknown[] = TYPE_CHECK_SETTING.choices;
  if (choices.includes(value)) return { value: value as TypeCheckMode };
  const got = typeof value === 'string' ? JSON.stringify(value) : describeValueType(value);
  const guess = typeof value === 'string' ? closestName(value, TYPE_CHECK_SETTING.choices) : null;
  const hint = guess === null ? '' : ` (did you mean "${guess}"?)`;
  return {
    error: `SETTING_INVALID: typeCheck (--${TYPE_CHECK_SETTING.flag}) takes one of ${TYPE_CHECK_SETTING.choices.join(', ')}; got ${got}${hint}`,
  };
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

/** `settings.approvals`: `{"allow"|"ask"|"deny": [globs]}`, each glob over tool names as scripts see them. */
function readApprovals(value: unknown, invalid: (detail: string) => ConfigError): ApprovalGlobs {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(` must be an object of glob lists, as in {"ask": ["github__delete_*"]} (got ${describeValueType(value)})`);
  }
  const approvals: ApprovalGlobs = {};
  for (const [key, globs] of Object.entries(value)) {
    if (key !== 'allow' && key !== 'ask' && key !== 'deny') {
      throw invalid(`.${key} is not a choice; approvals takes "allow", "ask" and "deny", each a list of globs`);
    }
    approvals[key] = readExpose(globs, (detail) => invalid(`.${key} ${detail}`));
  }
  return approvals;
}

/** The fields of `settings`, each named as a setting (else ConfigError, with the closest name). */
function settingEntries(raw: unknown, file: string | null): [string, unknown][] {
  if (raw === undefined) return [];
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(file, `settings must be an object (got ${describeValueType(raw)})`);
  }
  const entries = Object.entries(raw);
  for (const [name] of entries) {
    const known = isSettingName(name) || isLogSettingName(name) || isLocationSettingName(name) || isSwitchSettingName(name);
    const named: readonly string[] = [
      EXPOSE_SETTING.name,
      SKILLS_SAVE_SETTING.name,
      APPROVALS_SETTING.name,
      APPROVAL_FALLBACK_SETTING.name,
      TYPE_CHECK_SETTING.name,
    ];
    if (known || named.includes(name)) continue;
    const guess = closestName(name, ALL_NAMES);
    const hint = guess === null ? '' : ` (did you mean "${guess}"?)`;
    throw new ConfigError(
      file,
      `${formatConfigPath(['settings', name])} is not a setting${hint}; the settings are ${ALL_NAMES.join(', ')}`,
    );
  }
  return entries;
}

/** The code prefix is dropped: the message already starts with this error's own. */
function settingError(file: string | null, name: string, error: string): ConfigError {
  return new ConfigError(file, `${formatConfigPath(['settings', name])}: ${error.replace(/^SETTING_INVALID: /, '')}`);
}

export function isSwitchSettingName(name: string): name is SwitchSettingName {
  return Object.hasOwn(SWITCH_SETTINGS, name);
}
