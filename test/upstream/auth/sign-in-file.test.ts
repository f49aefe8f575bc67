import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authDirectory } from '../../../src/upstream/auth/auth-directory.js';
import { SignInFile, signInFileName } from '../../../src/upstream/auth/sign-in-file.js';
import { makeTempDir } from '../../support/temp-dirs.js';

let dir: string;
beforeEach(() => {
  dir = makeTempDir('signin');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('where sign-ins are kept', () => {
  it("is $XDG_CONFIG_HOME/codemode-mcp/auth when set, else the platform's config directory", () => {
    expect(authDirectory({ XDG_CONFIG_HOME: '/x' }, 'linux')).toBe('/x/codemode-mcp/auth');
    expect(authDirectory({ XDG_CONFIG_HOME: '/x' }, 'darwin')).toBe('/x/codemode-mcp/auth');
    expect(authDirectory({}, 'linux')).toMatch(/\/\.config\/codemode-mcp\/auth$/);
    expect(authDirectory({}, 'darwin')).toMatch(/\/Library\/Application Support\/codemode-mcp\/auth$/);
    expect(authDirectory({ APPDATA: 'C:\\Users\\me\\AppData\\Roaming' }, 'win32')).toContain('codemode-mcp');
  });

  it('is one file per server URL: the host to read, a hash to tell paths and ports apart', () => {
    expect(signInFileName('https://api.example.com/mcp')).toMatch(/^api\.example\.com-[0-9a-f]{16}\.json$/);
    expect(signInFileName('https://api.example.com/mcp')).not.toBe(signInFileName('https://api.example.com/other'));
    expect(signInFileName('https://api.example.com:8443/mcp')).not.toBe(signInFileName('https://api.example.com/mcp'));
  });
});

describe('a sign-in file', () => {
  it('is written 0600 in a 0700 directory, narrowing a directory made wider by hand, and read back whole', () => {
    const auth = join(dir, 'auth');
    mkdirSync(auth, { mode: 0o755 });
    chmodSync(auth, 0o755);
    const file = new SignInFile(auth, 'https://api.example.com/mcp');
    file.update((kept) => ({ ...kept, tokens: { access_token: 'a', token_type: 'Bearer' } }));
    expect(statSync(auth).mode & 0o777).toBe(0o700);
    expect(statSync(file.path).mode & 0o777).toBe(0o600);
    expect(file.read()).toEqual({
      serverUrl: 'https://api.example.com/mcp',
      tokens: { access_token: 'a', token_type: 'Bearer' },
    });
  });

  it('reads as empty when absent, unreadable as JSON, or for another URL', () => {
    const file = new SignInFile(join(dir, 'auth'), 'https://api.example.com/mcp');
    expect(file.read()).toEqual({ serverUrl: 'https://api.example.com/mcp' });
    mkdirSync(join(dir, 'auth'));
    writeFileSync(file.path, '{not json');
    expect(file.read()).toEqual({ serverUrl: 'https://api.example.com/mcp' });
    writeFileSync(file.path, JSON.stringify({ serverUrl: 'https://elsewhere.example.com/mcp', tokens: { access_token: 'x' } }));
    expect(file.read()).toEqual({ serverUrl: 'https://api.example.com/mcp' });
  });

  it('is removed by remove(), which says whether there was one', () => {
    const file = new SignInFile(join(dir, 'auth'), 'https://api.example.com/mcp');
    expect(file.remove()).toBe(false);
    file.update((kept) => kept);
    expect(JSON.parse(readFileSync(file.path, 'utf8'))).toEqual({ serverUrl: 'https://api.example.com/mcp' });
    expect(file.remove()).toBe(true);
    expect(() => statSync(file.path)).toThrow();
  });
});
