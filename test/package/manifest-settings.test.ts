/**
 * The MCP Bundle's questions (mcpb/manifest.template.json's user_config) against the server's own
 * settings: read from the template, so no bundle need be built.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readSettingValue } from '../../src/config/setting-value.js';
import { SETTINGS, type SettingName } from '../../src/config/settings.js';
import { ROOT } from '../support/mcp-client.js';

interface Question {
  readonly type: string;
  readonly default?: number;
  readonly min?: number;
  readonly max?: number;
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'mcpb', 'manifest.template.json'), 'utf8')) as {
  readonly server: { readonly mcp_config: { readonly args: readonly string[] } };
  readonly user_config: Readonly<Record<string, Question>>;
};

/** Each setting flag the bundle's command line fills from a question: `--yield-ms ${user_config.yield_seconds}s`. */
const asked = manifest.server.mcp_config.args.flatMap((arg, index, args) => {
  const match = /^\$\{user_config\.(\w+)\}(\w*)$/.exec(args[index + 1] ?? '');
  const name = Object.keys(SETTINGS).find((key) => `--${SETTINGS[key as SettingName].flag}` === arg) as SettingName | undefined;
  return match === null || name === undefined ? [] : [{ name, question: manifest.user_config[match[1]!]!, unit: match[2]! }];
});

/** The question's number with its unit, read as the flag would read it. */
function asSetting(name: SettingName, value: number | undefined, unit: string): number | string {
  const read = readSettingValue(name, `${value}${unit}`);
  return 'value' in read ? read.value : read.error;
}

describe("the bundle's settings", () => {
  test('asks about the settings a user tunes', () => {
    expect(asked.map(({ name }) => name)).toEqual(['yieldMs', 'maxRunningScripts', 'memoryMaxBytes']);
  });

  // Regression: the bundle let 3 scripts run at once where the server's default is 16.
  test.each(asked)("$name: the bundle's default and range are the server's", ({ name, question, unit }) => {
    const spec = SETTINGS[name];
    expect(asSetting(name, question.default, unit)).toBe(spec.default);
    expect(asSetting(name, question.min, unit)).toBe(spec.min);
    expect(asSetting(name, question.max, unit)).toBe(spec.max);
  });
});
