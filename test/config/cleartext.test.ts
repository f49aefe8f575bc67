import { SdkErrorCode, SdkHttpError, UnauthorizedError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { parseConfig } from '../../src/config/parse-config.js';
import type { RemoteUpstreamSpec } from '../../src/upstream/spec.js';
import { describeAuthFailure } from '../../src/upstream/auth/describe-auth-failure.js';
import { UpstreamAuth } from '../../src/upstream/auth/upstream-auth.js';
import { writeConfig } from '../support/mcp-client.js';
import { runInProcess } from '../support/in-process-command.js';

const FILE = '/home/me/servers.json';

function load(entry: Record<string, unknown>): RemoteUpstreamSpec {
  return parseConfig({ mcpServers: { api: { type: 'http', ...entry } } }, { path: FILE, env: { KEY: 'k3y' } })
    .upstreams[0] as RemoteUpstreamSpec;
}

function refusal(entry: Record<string, unknown>): string | undefined {
  try {
    load(entry);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).detail;
  }
}

const ELSEWHERE = [
  'http://api.example.com/mcp',
  'http://10.0.0.5:8080/mcp',
  'http://[2001:db8::1]/mcp',
  'http://[::ffff:10.0.0.1]/mcp',
  'http://127.example.com/mcp',
  'http://localhost.example.com/mcp',
];
const LOOPBACK = [
  'http://127.0.0.1:3000/mcp',
  'http://127.1.2.3/mcp',
  'http://0x7f.1/mcp',
  'http://[::1]:3000/mcp',
  'http://[::ffff:127.0.0.1]/mcp',
  'http://localhost:3000/mcp',
  'http://LOCALHOST./mcp',
  'http://api.localhost/mcp',
];
const CREDENTIALS: Array<[string, Record<string, unknown>, string]> = [
  ['an Authorization header', { headers: { Authorization: 'Bearer ${KEY}' } }, 'its "Authorization" header'],
  ['a lower-case authorization header', { headers: { authorization: 'Bearer x' } }, 'its "authorization" header'],
  ['a Cookie', { headers: { Cookie: 'session=x' } }, 'its "Cookie" header'],
  ['an API key header', { headers: { 'X-API-Key': 'x' } }, 'its "X-API-Key" header'],
  ['a token header', { headers: { 'X-Auth-Token': 'x' } }, 'its "X-Auth-Token" header'],
  ['an oauth block', { oauth: {} }, 'the tokens of its "oauth" sign-in'],
  [
    'client credentials',
    { oauth: { grant: 'client_credentials', clientId: 'm', clientSecret: '${KEY}' } },
    'the tokens of its "oauth" sign-in',
  ],
];

describe('credentials over plain http to another machine are refused unless the entry allows them', () => {
  for (const url of ELSEWHERE) {
    it.each(CREDENTIALS)(`${url} with %s is refused, naming the entry, its URL and the setting`, (_what, entry, named) => {
      const said = refusal({ url, ...entry });
      expect(said).toContain(`mcpServers.api sends ${named}`);
      expect(said).toContain(`to ${JSON.stringify(url)}, plain http to another machine`);
      expect(said).toContain('use an https:// URL, or set "allowInsecureHttp": true in the entry');
      expect(load({ url, ...entry, allowInsecureHttp: true })).toMatchObject({ url, allowInsecureHttp: true });
    });
  }

  it.each([...LOOPBACK, 'https://api.example.com/mcp'])('%s takes credentials with or without the setting', (url) => {
    for (const [, entry] of CREDENTIALS) {
      expect(refusal({ url, ...entry })).toBeUndefined();
      expect(refusal({ url, ...entry, allowInsecureHttp: false })).toBeUndefined();
    }
  });

  it('plain http to another machine without credentials loads, the setting off', () => {
    expect(
      load({ url: 'http://api.example.com/mcp', headers: { Accept: 'application/json' }, allowInsecureHttp: false }),
    ).not.toHaveProperty('allowInsecureHttp');
  });

  it('allowInsecureHttp must be true or false', () => {
    expect(refusal({ url: 'http://api.example.com/mcp', allowInsecureHttp: 'yes' })).toBe(
      'mcpServers.api.allowInsecureHttp must be true or false (got string)',
    );
  });

  it('a server there that asks for a sign-in unbidden gets none: no OAuth provider, and the reason says why and what to do', () => {
    const spec = load({ url: 'http://api.example.com/mcp' });
    const auth = new UpstreamAuth({ relay: () => undefined, log: () => {} });
    expect(auth.providerFor(spec, fetch)).toBeUndefined();
    expect(auth.providerFor(load({ url: 'http://api.example.com/mcp', allowInsecureHttp: true }), fetch)).toBeDefined();
    for (const error of [
      new UnauthorizedError(),
      new SdkHttpError(SdkErrorCode.ClientHttpAuthentication, 'no', { status: 401 }),
    ]) {
      expect(describeAuthFailure(error, { spec, refusal: { status: 401, error: 'invalid_token' }, oauth: false })).toBe(
        'it asks for a sign-in (it answered 401 (invalid_token)), but its URL is plain http to another machine, where codemode-mcp sends no tokens (bearer tokens go only over TLS, RFC 6750 §5.3); use an https:// URL, or set "allowInsecureHttp": true in its entry if you trust every network between',
      );
    }
  });

  it('login refuses to sign in there, before anything is sent', async () => {
    const config = writeConfig({ api: { type: 'http', url: 'http://api.example.invalid/mcp' } });
    const { exitCode, stderr } = await runInProcess(['login', 'api', '--config', config, '--no-browser']);
    expect(exitCode).toBe(1);
    expect(stderr).toContain(
      `codemode-mcp: LOGIN_FAILED: won't sign in to "api" (http://api.example.invalid/mcp): its URL is plain http to another machine`,
    );
  });
});
