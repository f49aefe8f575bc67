import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config/load-config-file.js';

const dir = new URL('../../examples/', import.meta.url);
const configs = readdirSync(dir).filter((name) => name.endsWith('.json'));

describe('the example configs', () => {
  it('include one server, several servers, and a remote http server with headers', () => {
    expect(configs).toEqual(expect.arrayContaining(['everything.json', 'servers.json', 'remote.json']));
  });

  it.each(configs)('examples/%s loads', (name) => {
    const loaded = loadConfigFile(new URL(name, dir).pathname, { HOME: '/home/someone', GITHUB_TOKEN: 'token' });
    expect(loaded.upstreams.length).toBeGreaterThan(0);
  });

  it('sends the remote server its headers, with ${VAR} filled in', () => {
    const loaded = loadConfigFile(new URL('remote.json', dir).pathname, { GITHUB_TOKEN: 'token' });
    expect(loaded.upstreams[0]).toMatchObject({
      name: 'github',
      transport: 'http',
      headers: { Authorization: 'Bearer token' },
      policy: { allow: ['get_*', 'list_*', 'search_*'] },
    });
    expect(loaded.upstreams[1]).toMatchObject({ transport: 'http', url: 'http://127.0.0.1:8931/mcp' });
  });
});
