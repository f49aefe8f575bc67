import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { NESTED_MARKER, PASSED_ENV_VARS, upstreamEnvironment } from '../../src/upstream/transport/environment.js';

describe('upstreamEnvironment', () => {
  afterEach(() => vi.unstubAllEnvs());

  test("its minimal set is the SDK's getDefaultEnvironment(), a shell function left out", () => {
    for (const name of PASSED_ENV_VARS) vi.stubEnv(name, undefined);
    vi.stubEnv('HOME', '/home/me');
    vi.stubEnv('LOGNAME', 'me');
    vi.stubEnv('SHELL', '() { echo exported function; }');
    vi.stubEnv('TERM', 'xterm');
    vi.stubEnv('USER', 'me');
    vi.stubEnv('SECRET_TOKEN', 'not for upstreams');
    expect(upstreamEnvironment({})).toEqual({ ...getDefaultEnvironment(), [NESTED_MARKER]: String(process.pid) });
    expect(upstreamEnvironment({})).not.toHaveProperty('SHELL');
    expect(upstreamEnvironment({})).not.toHaveProperty('SECRET_TOKEN');
  });

  test("the proxy variables, then the entry's own env, over the minimal set", () => {
    vi.stubEnv('HTTPS_PROXY', 'http://proxy:3128');
    vi.stubEnv('HOME', '/home/me');
    expect(upstreamEnvironment({ HOME: '/srv', API_KEY: 'k' })).toMatchObject({
      HOME: '/srv',
      HTTPS_PROXY: 'http://proxy:3128',
      API_KEY: 'k',
    });
  });

  test("the marker of a codemode-mcp's upstream is set last, so an entry's env can't clear or forge it", () => {
    expect(upstreamEnvironment({ [NESTED_MARKER]: '' })[NESTED_MARKER]).toBe(String(process.pid));
  });
});
