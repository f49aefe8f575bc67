import { SETTINGS, checkSetting, type SettingName, type SettingUnit } from './settings.js';
import { describeFound } from '../support/echo.js';

/** Suffixes a value may carry, by unit, lower-cased; '' is the plain number. */
const SUFFIXES: Record<SettingUnit, Readonly<Record<string, number>>> = {
  bytes: { '': 1, b: 1, bytes: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 },
  ms: { '': 1, ms: 1, s: 1_000, min: 60_000 },
  count: { '': 1 },
};

const WHAT_IT_TAKES: Record<SettingUnit, string> = {
  bytes: 'a whole number of bytes, or a number with KiB, MiB or GiB (as in 64MiB)',
  ms: 'a whole number of milliseconds, or a number with ms, s or min (as in 5s)',
  count: 'a whole number',
};

const NUMBER_AND_SUFFIX = /^(-?\d+(?:\.\d+)?)\s*([A-Za-z]*)$/;

export function isSettingName(name: string): name is SettingName {
  return Object.hasOwn(SETTINGS, name);
}

/**
 * A setting's value from a flag or the config file: a number, or a string such as `64MiB` or `5s`.
 * Returns the value, or the message refusing it (`SETTING_INVALID: ...`, from `checkSetting` when
 * the value is out of range).
 */
export function readSettingValue(name: SettingName, raw: unknown): { value: number } | { error: string } {
  const spec = SETTINGS[name];
  let value: number;
  if (typeof raw === 'number') {
    value = raw;
  } else {
    const match = typeof raw === 'string' ? NUMBER_AND_SUFFIX.exec(raw.trim()) : null;
    const factor = match === null ? undefined : SUFFIXES[spec.unit][(match[2] ?? '').toLowerCase()];
    if (match === null || factor === undefined) {
      const got = describeFound(raw);
      return { error: `SETTING_INVALID: ${name} (--${spec.flag}) takes ${WHAT_IT_TAKES[spec.unit]}; got ${got}` };
    }
    value = Number(match[1]) * factor;
    // 1.1 * 1000 is 1100.0000000000002: a decimal the user wrote as whole is whole.
    if (Math.abs(value - Math.round(value)) < 1e-6) value = Math.round(value);
  }
  const error = checkSetting(name, value);
  return error === null ? { value } : { error };
}
