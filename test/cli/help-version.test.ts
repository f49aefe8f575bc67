import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCli } from '../../src/cli/parse-cli.js';
import { readPackageVersion } from '../../src/cli/package-version.js';
import { SETTINGS, formatSettingValue, type NumberSettingSpec } from '../../src/config/settings.js';
import { makeTempDir } from '../support/temp-dirs.js';

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

describe('--version', () => {
  it("prints package.json's version and exits 0", () => {
    expect(parseCli(['--version'])).toEqual({ exit: 0, stdout: `${packageJson.version}\n` });
    expect(parseCli(['-V'])).toEqual({ exit: 0, stdout: `${packageJson.version}\n` });
  });

  it('walks up past package.json files of other names to find codemode-mcp', () => {
    const root = makeTempDir('version');
    try {
      mkdirSync(join(root, 'dist', 'src', 'cli'), { recursive: true });
      writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'codemode-mcp', version: '9.8.7' }));
      writeFileSync(join(root, 'dist', 'package.json'), JSON.stringify({ type: 'module' }));
      writeFileSync(join(root, 'dist', 'src', 'package.json'), '{ not json');
      const moduleUrl = pathToFileURL(join(root, 'dist', 'src', 'cli', 'package-version.js')).href;
      expect(readPackageVersion(moduleUrl)).toBe('9.8.7');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('says the installation is incomplete when no package.json is named codemode-mcp', () => {
    const root = makeTempDir('version');
    try {
      const moduleUrl = pathToFileURL(join(root, 'cli', 'package-version.js')).href;
      expect(() => readPackageVersion(moduleUrl)).toThrow(`no package.json named codemode-mcp above ${join(root, 'cli')}`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('--help', () => {
  const help = (argv: string[]): string => {
    const result = parseCli(argv);
    expect(result).toMatchObject({ exit: 0 });
    return (result as { stdout: string }).stdout;
  };

  it('shows both forms and the tools subcommand', () => {
    const text = help(['--help']);
    expect(text).toContain(
      'Usage: codemode-mcp --config <file> [options]\n       codemode-mcp [options] -- <command> [args...]\n',
    );
    expect(text).toContain('codemode-mcp tools (--config <file> | -- <command> [args...])');
    expect(text).toMatch(/tools \[options\]\s+print the tools a script can call, then exit/);
  });

  it('lists every setting flag with its default and range', () => {
    const text = help(['--help']).replace(/\n\s+/g, ' ');
    for (const spec of Object.values<NumberSettingSpec>(SETTINGS)) {
      expect(text).toContain(`--${spec.flag} <`);
      const format = (value: number): string => formatSettingValue(spec, value);
      expect(text).toContain(`${spec.doc} (default ${format(spec.default)}; ${format(spec.min)} to ${format(spec.max)})`);
    }
  });

  it('gives examples, the single-command one among them', () => {
    const text = help(['-h']);
    expect(text).toContain('Examples:');
    expect(text).toContain('codemode-mcp -- npx -y @modelcontextprotocol/server-filesystem /tmp');
    expect(text).toContain('codemode-mcp --config ~/.config/codemode/servers.json');
  });

  it('shows the tools subcommand its own forms and flags, by --help or by help tools', () => {
    const text = help(['tools', '--help']);
    expect(text).toContain(
      'Usage: codemode-mcp tools --config <file> [options]\n       codemode-mcp tools [options] -- <command> [args...]\n',
    );
    for (const spec of Object.values<NumberSettingSpec>(SETTINGS)) expect(text).toContain(`--${spec.flag} <`);
    expect(help(['help', 'tools'])).toBe(text);
  });

  it('lists login and logout, each with its own usage', () => {
    const text = help(['--help']).replace(/\n\s+/g, ' ');
    expect(text).toContain('codemode-mcp login <server> --config <file> [--no-browser]');
    expect(text).toContain('codemode-mcp logout <server> --config <file>');
    expect(text).toMatch(/login \[options\] <server>\s+sign in to a remote \(http\/sse\) server of the config in the browser/);
    expect(text).toMatch(/logout \[options\] <server>\s+forget a remote server's sign-in/);
    const login = help(['login', '--help']);
    expect(login).toContain('Usage: codemode-mcp login <server> --config <file> [--no-browser]');
    expect(login).toContain('--no-browser');
  });

  it('prints help rather than starting when --help comes with a form', () => {
    expect(help(['--help', '--', 'npx'])).toContain('Usage: codemode-mcp');
  });
});
