import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { parseConfig } from '../../src/config/parse-config.js';

const FILE = '/home/me/servers.json';

function load(oauth: unknown, env: Record<string, string> = {}): unknown {
  const config = parseConfig(
    { mcpServers: { api: { type: 'http', url: 'https://api.example.com/mcp', oauth } } },
    { path: FILE, env },
  );
  return config.upstreams[0];
}

function detailOf(oauth: unknown): string {
  try {
    load(oauth);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).detail;
  }
  throw new Error('the config loaded without an error');
}

describe('a remote entry\'s "oauth"', () => {
  it("is read with its variables expanded, a relative key file taken from the config file's directory, and the config file named for the login hint", () => {
    expect(
      load({ clientId: 'cid', clientSecret: '${API_SECRET}', scope: 'read write', redirectPort: 8765 }, { API_SECRET: 's3' }),
    ).toMatchObject({
      oauth: {
        grant: 'authorization_code',
        clientId: 'cid',
        clientSecret: 's3',
        scope: 'read write',
        redirectPort: 8765,
        secretWrittenInline: false,
      },
      configFile: FILE,
    });
    expect(load({ grant: 'client_credentials', clientId: 'machine', privateKeyFile: 'keys/client.pem' })).toMatchObject({
      oauth: { grant: 'client_credentials', clientId: 'machine', privateKeyFile: '/home/me/keys/client.pem' },
    });
  });

  it('names the field whose variable is unset', () => {
    expect(detailOf({ clientId: 'cid', clientSecret: '${NOT_SET_ANYWHERE}' })).toBe(
      'mcpServers.api.oauth.clientSecret uses ${NOT_SET_ANYWHERE}, which is not set in the environment; set NOT_SET_ANYWHERE or write ${NOT_SET_ANYWHERE:-default}',
    );
  });

  it('marks a secret written into the file itself, so the server warns about it', () => {
    expect(load({ clientId: 'cid', clientSecret: 'written-here' })).toMatchObject({ oauth: { secretWrittenInline: true } });
  });

  it('is left out of the spec when the entry has none', () => {
    const config = parseConfig(
      { mcpServers: { api: { type: 'http', url: 'https://api.example.com/mcp' } } },
      { path: FILE, env: {} },
    );
    expect(config.upstreams[0]).not.toHaveProperty('oauth');
  });

  it('says which fields go together, and what to do', () => {
    expect(detailOf({ clientSecret: 'x' })).toBe(
      'mcpServers.api.oauth.clientSecret needs mcpServers.api.oauth.clientId: a secret belongs to a pre-registered client',
    );
    expect(detailOf({ grant: 'client_credentials' })).toBe(
      'mcpServers.api.oauth.grant is "client_credentials", which needs mcpServers.api.oauth.clientId',
    );
    expect(detailOf({ grant: 'client_credentials', clientId: 'm' })).toContain(
      'needs either mcpServers.api.oauth.clientSecret or mcpServers.api.oauth.privateKeyFile',
    );
    expect(detailOf({ grant: 'client_credentials', clientId: 'm', clientSecret: 'x', privateKeyFile: 'k.pem' })).toContain(
      'not both',
    );
    expect(detailOf({ grant: 'client_credentials', clientId: 'm', clientSecret: 'x', redirectPort: 9000 })).toContain(
      'redirectPort is for a browser sign-in',
    );
    expect(detailOf({ privateKeyFile: 'k.pem' })).toContain(
      'privateKeyFile signs client_credentials requests; set mcpServers.api.oauth.grant to "client_credentials"',
    );
    expect(detailOf({ clientId: 'https://me.example.com/client.json', clientSecret: 'x' })).toContain(
      'is a Client ID Metadata Document URL, which has no secret',
    );
  });

  it('refuses an unknown field, a bad grant and a port out of range, naming each', () => {
    expect(detailOf({ clientID: 'x' })).toContain('clientID');
    expect(detailOf({ grant: 'password' })).toContain('mcpServers.api.oauth.grant');
    expect(detailOf({ redirectPort: 70000 })).toContain('must be a port from 1 to 65535');
  });
});
