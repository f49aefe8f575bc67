import { describe, expect, it } from 'vitest';
import { mergeSettings } from '../../src/config/merge-settings.js';
import { parseConfig } from '../../src/config/parse-config.js';
import { describeFlagIssue, readSettingsObject } from '../../src/config/read-settings.js';
import {
  DEFAULT_SETTINGS,
  SETTINGS,
  formatSettingValue,
  type NumberSettingSpec,
  type SettingName,
} from '../../src/config/settings.js';

const MiB = 1024 * 1024;

/** One number setting's value as the config file or a flag gives it, or its problem as a flag's message says it. */
function readSettingValue(name: SettingName, raw: unknown): { value: unknown } | { error: string } {
  const read = readSettingsObject({ [name]: raw }, { baseDir: '/', home: '/', env: {} });
  return 'issue' in read ? { error: describeFlagIssue(read.issue) } : { value: read.layer.settings[name] };
}

describe('setting values', () => {
  it('takes a plain whole number, as a number or a string', () => {
    expect(readSettingValue('pool', 4)).toEqual({ value: 4 });
    expect(readSettingValue('pool', '4')).toEqual({ value: 4 });
    expect(readSettingValue('yieldMs', ' 2500 ')).toEqual({ value: 2_500 });
  });

  it('takes KiB, MiB and GiB for sizes, in any case and with or without a space', () => {
    expect(readSettingValue('memoryMaxBytes', '64MiB')).toEqual({ value: 64 * MiB });
    expect(readSettingValue('memoryMaxBytes', '65536KiB')).toEqual({ value: 64 * MiB });
    expect(readSettingValue('memoryMaxBytes', '1 GiB')).toEqual({ value: 1024 * MiB });
    expect(readSettingValue('memoryMaxBytes', '1.5gib')).toEqual({ value: 1536 * MiB });
    expect(readSettingValue('memoryMaxBytes', '8388608 bytes')).toEqual({ value: 8 * MiB });
  });

  it('takes ms, s and min for durations, decimals included', () => {
    expect(readSettingValue('yieldMs', '250ms')).toEqual({ value: 250 });
    expect(readSettingValue('yieldMs', '5s')).toEqual({ value: 5_000 });
    expect(readSettingValue('yieldMs', '1.1s')).toEqual({ value: 1_100 });
    expect(readSettingValue('scriptLifetimeMs', '20min')).toEqual({ value: 1_200_000 });
  });

  it('reads back every default, minimum and maximum as --help prints them ("30 s", "128 MiB")', () => {
    for (const [name, spec] of Object.entries(SETTINGS) as [SettingName, NumberSettingSpec][]) {
      for (const value of [spec.default, spec.min, spec.max]) {
        expect(readSettingValue(name, formatSettingValue(spec, value))).toEqual({ value });
      }
    }
  });

  it('refuses a suffix of the wrong unit, saying what the setting takes', () => {
    expect(readSettingValue('memoryMaxBytes', '64MB')).toEqual({
      error:
        'SETTING_INVALID: memoryMaxBytes (--memory-max-bytes) takes a whole number of bytes, or a number with KiB, MiB or GiB (as in 64MiB); got "64MB"',
    });
    expect(readSettingValue('pool', '2s')).toEqual({ error: 'SETTING_INVALID: pool (--pool) takes a whole number; got "2s"' });
  });

  it('refuses a value out of range, naming the setting and its range', () => {
    expect(readSettingValue('memoryMaxBytes', '3GiB')).toEqual({
      error: 'SETTING_INVALID: memoryMaxBytes (--memory-max-bytes) must be a whole number between 4 MiB and 2 GiB; got 3 GiB',
    });
    expect(readSettingValue('pool', -1)).toEqual({
      error: 'SETTING_INVALID: pool (--pool) must be a whole number between 0 and 16; got -1',
    });
  });

  it('refuses a fraction that is not a whole number of the unit', () => {
    expect(readSettingValue('yieldMs', '0.5ms')).toEqual({
      error: 'SETTING_INVALID: yieldMs (--yield-ms) must be a whole number between 0 ms and 60 min; got 0.5 ms',
    });
  });
});

describe('merging settings', () => {
  it('starts from the defaults', () => {
    expect(mergeSettings({}, {})).toEqual(DEFAULT_SETTINGS);
  });

  it('lets the config file override a default, and a flag override the config file', () => {
    const merged = mergeSettings({ pool: 0, yieldMs: 1_000 }, { yieldMs: 2_000 });
    expect(merged).toEqual({ ...DEFAULT_SETTINGS, pool: 0, yieldMs: 2_000 });
  });

  it('reads the file settings as the merge expects them', () => {
    const config = parseConfig(
      { mcpServers: { a: { command: 'x' } }, settings: { memoryMaxBytes: 67_108_864, notifyMax: 0 } },
      { path: null, env: {} },
    );
    expect(config.settings).toEqual({ memoryMaxBytes: 64 * MiB, notifyMax: 0 });
  });
});
