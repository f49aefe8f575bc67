/** Every setting from one spec: a flag and a config-file field of each, read alike, problems as data. */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isCliExit, parseCli, type CliInvocation } from '../../src/cli/parse-cli.js';
import { readSettingsObject } from '../../src/config/read-settings.js';
import { isNumberSetting, type SettingSpec } from '../../src/config/setting-spec.js';
import { ALL_SETTINGS, DEFAULT_SETTINGS, formatSettingValue, type SettingName } from '../../src/config/settings.js';
import { boundsBeside } from '../../src/config/settings-together.js';
import { makeTempDir } from '../support/temp-dirs.js';

let dir: string;
beforeEach(() => {
  dir = makeTempDir('setting-specs');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const PLACE = { baseDir: '/base', home: '/home/me', env: {} };

function invocation(argv: string[]): CliInvocation {
  const result = parseCli(argv, { env: {}, cwd: dir, homedir: dir });
  if (isCliExit(result)) throw new Error(`expected an invocation, got exit ${result.exit}: ${result.stderr ?? ''}`);
  return result;
}

/** What the spec's setting is set to, read back from an invocation. */
function valueIn(run: CliInvocation, spec: SettingSpec): unknown {
  return spec.layer === 'logging' ? run.logging[spec.name as 'logLevel'] : run.settings[spec.name as keyof typeof run.settings];
}

/** A value other than the default, as a flag's texts and as the config file's field: one the other settings' defaults allow. */
function sampleOf(spec: SettingSpec): { texts: string[]; field: unknown } {
  if (isNumberSetting(spec)) {
    const { min, max } = boundsBeside(spec.name as SettingName, DEFAULT_SETTINGS);
    const value = min === spec.default ? max : min;
    return { texts: [formatSettingValue(spec, value)], field: value };
  }
  switch (spec.kind) {
    case 'switch':
      return { texts: [], field: true };
    case 'choice': {
      const choices = [...spec.rangeMarkdown.matchAll(/`(\w+)`/g)].map((match) => match[1]);
      const other = choices.find((choice) => choice !== spec.default);
      return { texts: [other!], field: other };
    }
    case 'globs':
      return { texts: ['search_*', 'fs__read'], field: ['search_*', 'fs__read'] };
    case 'approvals':
      return { texts: ['ask=*delete*', 'deny=fs__wipe'], field: { ask: ['*delete*'], deny: ['fs__wipe'] } };
    case 'url': {
      const url = spec.rangeMarkdown.includes('redis') ? 'redis://localhost:6379' : 'https://mcp.example.com';
      return { texts: [url], field: url };
    }
    case 'fetch':
      return { texts: ['{"https://api.example": {"methods": ["GET"]}}'], field: { 'https://api.example': { methods: ['GET'] } } };
    case 'tokenize':
      return { texts: ['{"fields":["name"]}'], field: { fields: ['name'] } };
    default:
      return { texts: ['some/where'], field: 'some/where' };
  }
}

describe('every setting', () => {
  it.each(ALL_SETTINGS)('$name is a CLI flag named for it and a config-file field, each setting it alike', (spec) => {
    expect(spec.flag).toBe(spec.name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`));
    const { texts, field } = sampleOf(spec);
    const flags = texts.length === 0 ? [`--${spec.flag}`] : texts.flatMap((text) => [`--${spec.flag}`, text]);
    const fromFlag = invocation([...flags, '--', 'npx', 'server']);
    const file = join(dir, 'servers.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { a: { command: 'x' } }, settings: { [spec.name]: field } }));
    const fromFile = invocation(['--config', file]);
    expect(valueIn(fromFlag, spec)).toEqual(valueIn(fromFile, spec));
    expect(valueIn(fromFlag, spec)).not.toEqual(valueIn(invocation(['--', 'npx', 'server']), spec));
  });

  it('is listed in --help by its flag', () => {
    const result = parseCli(['--help']);
    const help = isCliExit(result) ? (result.stdout ?? '') : '';
    for (const spec of ALL_SETTINGS)
      expect(help).toContain(`--${spec.flag}${spec.placeholder === null ? '' : ` ${spec.placeholder}`}`);
  });

  it('has a default the server starts with and the README shows', () => {
    for (const spec of ALL_SETTINGS) {
      if (spec.layer === 'settings') expect(DEFAULT_SETTINGS[spec.name as keyof typeof DEFAULT_SETTINGS]).toEqual(spec.default);
      expect(spec.defaultMarkdown).not.toBe('');
    }
  });
});

describe('a setting refused', () => {
  it('is an issue with its place, a code and what is wrong, not a string to take apart', () => {
    expect(readSettingsObject({ pool: 99 }, PLACE)).toEqual({
      issue: { path: ['pool'], code: 'SETTING_INVALID', message: 'must be a whole number between 0 and 16; got 99' },
    });
    expect(readSettingsObject({ expose: ['search', ''] }, PLACE)).toEqual({
      issue: {
        path: ['expose', 1],
        code: 'SETTING_INVALID',
        message: 'must be a non-empty glob over tool names as scripts see them (got an empty string)',
      },
    });
    expect(readSettingsObject({ approvals: { confirm: [] } }, PLACE)).toMatchObject({
      issue: { path: ['approvals', 'confirm'], code: 'SETTING_INVALID' },
    });
    expect(readSettingsObject({ pool: 1, poool: 2 }, PLACE)).toMatchObject({
      issue: {
        path: ['poool'],
        code: 'SETTING_UNKNOWN',
        message: expect.stringMatching(/^is not a setting \(did you mean "pool"\?\)/),
      },
    });
  });

  it('is the first in the order the file gives them, an unknown name before all', () => {
    expect(readSettingsObject({ yieldMs: 'soon', pool: -1 }, PLACE)).toMatchObject({ issue: { path: ['yieldMs'] } });
    expect(readSettingsObject({ pool: -1, yieldMs: 'soon' }, PLACE)).toMatchObject({ issue: { path: ['pool'] } });
    expect(readSettingsObject({ pool: -1, yieldMS: 1 }, PLACE)).toMatchObject({ issue: { path: ['yieldMS'] } });
  });

  it('takes a relative path from the place given, and ~ as its home', () => {
    expect(readSettingsObject({ stateDir: 'state', logFile: '~/log.txt' }, PLACE)).toEqual({
      layer: { settings: { stateDir: '/base/state' }, logging: { logFile: '/home/me/log.txt' } },
    });
  });
});

describe('the flags that were config-file fields only', () => {
  const exitOf = (argv: string[]): string => {
    const result = parseCli(argv, { env: {}, cwd: dir, homedir: dir });
    return isCliExit(result) ? (result.stderr ?? '') : 'no exit';
  };

  it("--approvals takes allow=, ask= or deny= and a glob, once per glob, the flags' globs replacing the file's", () => {
    const file = join(dir, 'servers.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { a: { command: 'x' } }, settings: { approvals: { allow: ['*'] } } }));
    expect(invocation(['--config', file]).settings.approvals).toEqual({ allow: ['*'] });
    expect(invocation(['--config', file, '--approvals', 'ask=github__delete_*']).settings.approvals).toEqual({
      ask: ['github__delete_*'],
    });
    expect(exitOf(['--approvals', 'github__*', '--', 'x'])).toContain(
      'SETTING_INVALID: approvals (--approvals) takes allow=<glob>, ask=<glob> or deny=<glob>, as in ask=github__delete_*; got "github__*"',
    );
    expect(exitOf(['--approvals', 'ask=', '--', 'x'])).toContain(
      'SETTING_INVALID: approvals (--approvals) must be a non-empty glob over tool names as scripts see them (got an empty string)',
    );
  });

  it('--approval-fallback takes refuse or allow, and says so', () => {
    expect(invocation(['--approval-fallback', 'allow', '--', 'x']).settings.approvalFallback).toBe('allow');
    expect(exitOf(['--approval-fallback', 'ask', '--', 'x'])).toContain(
      'codemode-mcp: SETTING_INVALID: approvalFallback (--approval-fallback) must be "refuse" or "allow" (got "ask")',
    );
  });

  it('--skills-save-over-http turns on what the file leaves off', () => {
    expect(invocation(['--skills-save-over-http', '--', 'x']).settings.skillsSaveOverHttp).toBe(true);
    expect(invocation(['tools', '--skills-save-over-http', '--', 'x']).settings.skillsSaveOverHttp).toBe(true);
  });
});
