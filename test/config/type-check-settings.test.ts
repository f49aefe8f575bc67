import { describe, expect, it } from 'vitest';
import { parseCli, isCliExit } from '../../src/cli/parse-cli.js';
import { readFileSettings } from '../../src/config/file-settings.js';
import { DEFAULT_SETTINGS } from '../../src/config/settings.js';

describe('the type check settings (issue 47)', () => {
  it('checks with errors refused and a 3 s limit by default', () => {
    expect(DEFAULT_SETTINGS.typeCheck).toBe('error');
    expect(DEFAULT_SETTINGS.typeCheckTimeoutMs).toBe(3_000);
  });

  it('reads typeCheck and typeCheckTimeoutMs from the config file', () => {
    const { settings } = readFileSettings({ typeCheck: 'warn', typeCheckTimeoutMs: '5s' }, '/c.json', {});
    expect(settings).toEqual({ typeCheck: 'warn', typeCheckTimeoutMs: 5_000 });
  });

  it('refuses a mode that is not one, naming the modes and the closest', () => {
    expect(() => readFileSettings({ typeCheck: 'wran' }, '/c.json', {})).toThrow(
      'settings.typeCheck must be "error", "warn" or "off" (got "wran"; did you mean "warn"?)',
    );
    expect(() => readFileSettings({ typeCheck: false }, '/c.json', {})).toThrow(
      'settings.typeCheck must be "error", "warn" or "off" (got boolean)',
    );
  });

  it('takes both as flags, and refuses a limit out of range', () => {
    const invocation = parseCli(['--type-check', 'off', '--type-check-timeout-ms', '10s', '--', 'node', 'server.js']);
    expect(isCliExit(invocation) ? invocation : invocation.settings).toMatchObject({
      typeCheck: 'off',
      typeCheckTimeoutMs: 10_000,
    });
    const refused = parseCli(['--type-check-timeout-ms', '10min', '--', 'node', 'server.js']);
    expect(isCliExit(refused) && refused.stderr).toMatch(
      /typeCheckTimeoutMs \(--type-check-timeout-ms\) must be a whole number between 100 ms and 1 min/,
    );
    const badMode = parseCli(['--type-check', 'strict', '--', 'node', 'server.js']);
    expect(isCliExit(badMode) && badMode.stderr).toContain(
      'typeCheck (--type-check) must be "error", "warn" or "off" (got "strict")',
    );
  });
});
