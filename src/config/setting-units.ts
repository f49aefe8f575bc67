/** A number setting's unit: how a value is written (`64MiB`, `5s`) and shown (`64 MiB`, `5 s`). */
import { formatBytes } from '../../common/format-numbers.js';

export type SettingUnit = 'ms' | 'bytes' | 'count';

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const KiB = 1024;
export const MiB = 1024 * KiB;
export const GiB = 1024 * MiB;

/** Suffixes a value may carry, by unit, lower-cased; '' is the plain number. */
const SUFFIXES: Record<SettingUnit, Readonly<Record<string, number>>> = {
  bytes: { '': 1, b: 1, bytes: 1, kib: KiB, mib: MiB, gib: GiB },
  ms: { '': 1, ms: 1, s: SECOND, min: MINUTE },
  count: { '': 1 },
};

/** What a value of the unit is written as, for a refusal: "takes <this>". */
export const WHAT_IT_TAKES: Record<SettingUnit, string> = {
  bytes: 'a whole number of bytes, or a number with KiB, MiB or GiB (as in 64MiB)',
  ms: 'a whole number of milliseconds, or a number with ms, s or min (as in 5s)',
  count: 'a whole number',
};

/** The flag's value in --help. */
export const UNIT_PLACEHOLDERS: Record<SettingUnit, string> = { ms: '<duration>', bytes: '<size>', count: '<n>' };

const NUMBER_AND_SUFFIX = /^(-?\d+(?:\.\d+)?)\s*([A-Za-z]*)$/;

/** How many of the unit's base a suffix stands for (`MiB`: 1,048,576 bytes), or undefined when the unit takes no such suffix. */
export function suffixFactor(unit: SettingUnit, suffix: string): number | undefined {
  return SUFFIXES[unit][suffix.toLowerCase()];
}

/** `64MiB`, `1.5 s`, `4` as a number of the unit's base, or undefined when it can't be read so. */
export function readWithSuffix(unit: SettingUnit, text: string): number | undefined {
  const match = NUMBER_AND_SUFFIX.exec(text.trim());
  const factor = match === null ? undefined : suffixFactor(unit, match[2] ?? '');
  if (match === null || factor === undefined) return undefined;
  const value = Number(match[1]) * factor;
  // 1.1 * 1000 is 1100.0000000000002: a decimal the user wrote as whole is whole.
  return Math.abs(value - Math.round(value)) < 1e-6 ? Math.round(value) : value;
}

export function formatSettingValue(spec: { readonly unit: SettingUnit }, value: number): string {
  switch (spec.unit) {
    case 'bytes':
      return formatBytes(value);
    case 'ms':
      if (value >= MINUTE && value % MINUTE === 0) return `${value / MINUTE} min`;
      if (value >= SECOND && value % SECOND === 0) return `${value / SECOND} s`;
      return `${value} ms`;
    case 'count':
      return String(value);
  }
}
