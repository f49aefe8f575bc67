/**
 * `settings.fetch`: the origins scripts may fetch, read from the config file (or `--fetch`, the
 * same JSON), checked whole, with `${VAR}` expanded in header values, and the values never shown
 * by a dump of the settings or a refusal.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isCliExit, parseCli } from '../../src/cli/parse-cli.js';
import { parseConfig } from '../../src/config/parse-config.js';
import { DEFAULT_SETTINGS } from '../../src/config/settings.js';
import { makeTempDir } from '../support/temp-dirs.js';

const env = { GITHUB_TOKEN: 'ghp_s3cret-token-value', EMPTY: '' };
const servers = { mcpServers: { a: { command: 'a' } } };

function read(fetch: unknown) {
  return parseConfig({ ...servers, settings: { fetch } }, { path: '/etc/c.json', env }).settings.fetch;
}

function refusal(fetch: unknown): string {
  try {
    read(fetch);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the config was read');
}

describe('settings.fetch', () => {
  it('is off by default: no origin is listed', () => {
    expect(DEFAULT_SETTINGS.fetch).toEqual([]);
    expect(parseConfig(servers, { path: null, env }).settings.fetch).toBeUndefined();
  });

  it('reads each origin as URL.origin writes it, with its methods upper-cased, its headers expanded and the defaults', () => {
    const rules = read({
      'https://API.github.com:443': {
        methods: ['get', 'POST', 'GET'],
        headers: { Authorization: 'Bearer ${GITHUB_TOKEN}', 'X-GitHub-Api-Version': '2022-11-28' },
        approval: 'ask',
        paths: ['/repos/**', '/user'],
      },
      'http://127.0.0.1:8080': { allowPrivate: true },
    })!;
    expect(rules.map(({ headers: _headers, ...rule }) => rule)).toEqual([
      {
        origin: 'https://api.github.com',
        methods: ['GET', 'POST'],
        approval: 'ask',
        paths: ['/repos/**', '/user'],
        allowPrivate: false,
      },
      { origin: 'http://127.0.0.1:8080', methods: ['GET', 'HEAD'], allowPrivate: true },
    ]);
    const headers = rules[0]!.headers;
    expect(headers.names).toEqual(['authorization', 'x-github-api-version']);
    expect(headers.entries()).toEqual([
      ['authorization', 'Bearer ghp_s3cret-token-value'],
      ['x-github-api-version', '2022-11-28'],
    ]);
    expect(headers.secrets).toEqual(['ghp_s3cret-token-value']);
  });

  it('never prints a header value: JSON and util.inspect of the settings show the names alone', () => {
    const rules = read({ 'https://api.github.com': { headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } } });
    expect(JSON.stringify(rules)).not.toContain('s3cret');
    expect(JSON.stringify(rules)).toContain('"authorization":"(set)"');
    expect(inspect(rules, { depth: 10 })).not.toContain('s3cret');
  });

  it.each([
    ['not an object', [], 'settings.fetch must be an object of origins'],
    ['a key that is no URL', { 'api.github.com': {} }, 'settings.fetch["api.github.com"] is not a URL; name an origin as in'],
    ['another scheme', { 'ftp://x.example': {} }, 'is a ftp: URL; an origin scripts fetch is http:// or https://'],
    [
      'a path',
      { 'https://api.github.com/repos': {} },
      'is not only an origin; write https://api.github.com and list the paths under "paths"',
    ],
    ['credentials in the URL', { 'https://u:p@x.example': {} }, 'carries a user name or password'],
    ['the same origin twice', { 'https://x.example': {}, 'https://X.example:443': {} }, 'is the origin https://x.example again'],
    [
      'an unknown field',
      { 'https://x.example': { method: ['GET'] } },
      '.method is not a field of an origin (did you mean "methods"?)',
    ],
    ['no methods', { 'https://x.example': { methods: [] } }, '.methods must be a non-empty list of methods'],
    ['a method that is no token', { 'https://x.example': { methods: ['GET POST'] } }, '.methods[0] must be an HTTP method'],
    ['CONNECT', { 'https://x.example': { methods: ['connect'] } }, '.methods[0] is CONNECT, which fetch never sends'],
    [
      'a header the server writes',
      { 'https://x.example': { headers: { Host: 'y' } } },
      '.headers.Host is a header the server writes itself',
    ],
    ['a header named twice', { 'https://x.example': { headers: { a: '1', A: '2' } } }, '.headers.A is named twice'],
    [
      'an unset variable',
      { 'https://x.example': { headers: { a: '${NOPE}' } } },
      '.headers.a uses ${NOPE}, which is not set in the environment',
    ],
    ['a value that is no string', { 'https://x.example': { headers: { a: 1 } } }, '.headers.a must be a string (got number)'],
    [
      'an approval of another kind',
      { 'https://x.example': { approval: 'deny' } },
      '.approval must be "allow" or "ask" (got "deny")',
    ],
    [
      'a path glob without its slash',
      { 'https://x.example': { paths: ['repos/*'] } },
      '.paths[0] must be a path glob starting with "/"',
    ],
    [
      'allowPrivate as a string',
      { 'https://x.example': { allowPrivate: 'yes' } },
      '.allowPrivate must be true or false (got string)',
    ],
    [
      'a credential over plain http to another machine',
      { 'http://api.example': { headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } } },
      '.headers sends "authorization" to http://api.example, plain http to another machine',
    ],
  ])('refuses %s, naming the origin, the field and what to do', (_what, fetch, message) => {
    const text = refusal(fetch);
    expect(text).toMatch(/^CONFIG_INVALID: \/etc\/c\.json: settings\.fetch/);
    expect(text).toContain(message);
    expect(text).not.toContain('s3cret');
  });

  it('takes plain http to this machine with a credential, and to another machine when the entry says allowInsecureHttp', () => {
    expect(read({ 'http://localhost:9': { headers: { Authorization: 'x' } } })).toHaveLength(1);
    expect(read({ 'http://api.example': { headers: { Authorization: 'x' }, allowInsecureHttp: true } })).toHaveLength(1);
  });
});

describe('--fetch', () => {
  function flagged(argv: string[], env: Record<string, string> = {}) {
    return parseCli([...argv, '--', 'npx', 'server'], { env });
  }
  const originsOf = (result: ReturnType<typeof flagged>) =>
    isCliExit(result) ? result.stderr : result.settings.fetch.map((rule) => rule.origin);

  it('takes the JSON object the file holds, its header values expanded from the environment', () => {
    const result = flagged(
      [
        '--fetch',
        '{"https://api.github.com": {"methods": ["GET", "POST"], "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}}}',
      ],
      env,
    );
    if (isCliExit(result)) throw new Error(result.stderr);
    const [rule] = result.settings.fetch;
    expect(rule).toMatchObject({ origin: 'https://api.github.com', methods: ['GET', 'POST'] });
    expect(rule!.headers.entries()).toEqual([['authorization', 'Bearer ghp_s3cret-token-value']]);
  });

  it('adds the origins of each flag given, and replaces the file’s', () => {
    const file = join(makeTempDir('fetch-flag'), 'servers.json');
    writeFileSync(file, JSON.stringify({ ...servers, settings: { fetch: { 'https://file.example': {} } } }));
    expect(originsOf(parseCli(['--config', file], { env }))).toEqual(['https://file.example']);
    const both = parseCli(['--config', file, '--fetch', '{"https://a.example": {}}', '--fetch', '{"https://b.example": {}}'], {
      env,
    });
    expect(originsOf(both)).toEqual(['https://a.example', 'https://b.example']);
  });

  it.each([
    [
      'text that is not JSON, not quoting it back',
      ['--fetch', '{"https://x.example": {"headers": {"a": "s3cret"}'],
      'SETTING_INVALID: fetch (--fetch) takes a JSON object of origins, as in {"https://api.github.com": {}}; got text that is not JSON',
    ],
    [
      'an origin in two flags',
      ['--fetch', '{"https://x.example": {}}', '--fetch', '{"https://x.example": {}}'],
      'SETTING_INVALID: fetch (--fetch) names "https://x.example" twice; list each origin once',
    ],
    ['a JSON list', ['--fetch', '[]'], 'SETTING_INVALID: fetch (--fetch) must be an object of origins'],
    [
      'a method inside an origin',
      ['--fetch', '{"https://x.example": {"methods": ["connect"]}}'],
      'SETTING_INVALID: fetch["https://x.example"].methods[0] (--fetch) is CONNECT, which fetch never sends',
    ],
  ])('refuses %s, naming the place inside the flag', (_what, argv, message) => {
    const result = flagged(argv, env);
    expect(isCliExit(result) ? result.stderr : '').toContain(message);
    expect(isCliExit(result) ? result.stderr : '').not.toContain('s3cret');
  });
});
