import { describe, expect, it } from 'vitest';
import { isCliExit, parseCli } from '../../src/cli/parse-cli.js';
import { mergeSettings } from '../../src/config/merge-settings.js';
import { parseConfig } from '../../src/config/parse-config.js';
import { DEFAULT_TOKENIZE, TOKEN_DETECTORS } from '../../src/config/tokenize-setting.js';

function readTokenize(tokenize: unknown) {
  const config = parseConfig(
    { mcpServers: { a: { command: 'x' } }, settings: { tokenize } },
    { path: '/c/servers.json', env: {} },
  );
  return mergeSettings(config.settings, {}).tokenize;
}

describe('settings.tokenize', () => {
  it('is off unless the config file turns it on', () => {
    expect(mergeSettings({}, {}).tokenize).toBeNull();
    expect(readTokenize(false)).toBeNull();
  });

  it('turns on every detector with true, restoring to every upstream', () => {
    expect(readTokenize(true)).toEqual(DEFAULT_TOKENIZE);
    expect(DEFAULT_TOKENIZE.detectors).toEqual(TOKEN_DETECTORS);
    expect(DEFAULT_TOKENIZE.restore).toEqual(['*']);
    expect(DEFAULT_TOKENIZE.phoneRegion).toBeNull();
  });

  it('takes the object form over the defaults', () => {
    const given = {
      detectors: ['email', 'phone'],
      fields: ['name', 'address'],
      patterns: ['ACME-\\d{6}'],
      phoneRegion: 'US',
      restore: [],
      ttlMs: 60_000,
    };
    expect(readTokenize(given)).toEqual({ ...DEFAULT_TOKENIZE, ...given });
  });

  it.each([
    [{ detector: ['email'] }, 'settings.tokenize.detector is not a field of tokenize (did you mean "detectors"?)'],
    [
      { detectors: ['mail'] },
      'settings.tokenize.detectors[0] must be one of "email", "phone", "card", "iban", "ip" (got "mail")',
    ],
    [{ fields: 'name' }, 'settings.tokenize.fields must be a list of strings, each a JSON field name (got a string)'],
    [
      { patterns: ['(abc'] },
      'settings.tokenize.patterns[0] ("(abc") is not a regular expression JavaScript reads: Unterminated group',
    ],
    [{ patterns: ['ok', 'x*'] }, 'settings.tokenize.patterns[1] ("x*") matches the empty string'],
    [{ phoneRegion: 'us' }, 'settings.tokenize.phoneRegion must be a region code of two capital letters'],
    [{ phoneRegion: 'XX' }, 'settings.tokenize.phoneRegion "XX" is not a region with a phone numbering plan'],
    [{ restore: ['crm', ''] }, 'settings.tokenize.restore[1] must be a glob over upstream names, not an empty string'],
    [{ ttlMs: 10 }, 'settings.tokenize.ttlMs must be a whole number of milliseconds from 1000 (1 s) to 2592000000 (30 days)'],
    [{ maxValues: 1.5 }, 'settings.tokenize.maxValues must be a whole number from 1 to 10000000'],
    [
      'yes',
      'settings.tokenize must be true, false or an object such as {"fields": ["name"], "phoneRegion": "US"} (got a string)',
    ],
  ])('refuses %j, saying what is wrong and where', (tokenize, message) => {
    expect(() => readTokenize(tokenize)).toThrow(`CONFIG_INVALID: /c/servers.json: ${message}`);
  });
});

describe('--tokenize', () => {
  const parse = (argv: string[]) => parseCli([...argv, '--', 'npx', 'server'], { env: {}, cwd: '/', homedir: '/' });

  it('alone turns on the defaults, and takes the object form as JSON', () => {
    expect(parse(['--tokenize'])).toMatchObject({ settings: { tokenize: DEFAULT_TOKENIZE } });
    expect(parse(['--tokenize', '{"fields":["name"],"restore":[]}'])).toMatchObject({
      settings: { tokenize: { ...DEFAULT_TOKENIZE, fields: ['name'], restore: [] } },
    });
    expect(parse(['--tokenize', 'false'])).toMatchObject({ settings: { tokenize: null } });
  });

  it('refuses a value that is not JSON, saying where an upstream command goes', () => {
    const result = parse(['--tokenize', 'npx']);
    expect(isCliExit(result) ? result.stderr : '').toContain(
      `SETTING_INVALID: tokenize (--tokenize) takes nothing (the defaults), true, false or a JSON object such as '{"fields": ["name"], "phoneRegion": "US"}'; got "npx" (an upstream's command goes after --)`,
    );
  });

  it('refuses a bad object as the file would, naming the field', () => {
    const result = parse(['--tokenize', '{"ttlMs": 5}']);
    expect(isCliExit(result) ? result.stderr : '').toContain(
      'SETTING_INVALID: tokenize (--tokenize) must be a whole number of milliseconds',
    );
  });
});
