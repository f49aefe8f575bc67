import { describe, expect, it } from 'vitest';
import { upstreamFromCommand } from '../../src/config/upstream-from-command.js';

describe('the upstream of `-- <command> [args...]`', () => {
  it('is one stdio upstream named after the package it runs, with an empty env and no policy', () => {
    expect(upstreamFromCommand('npx', ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'])).toEqual({
      name: 'server-filesystem',
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
      env: {},
      policy: {},
    });
  });

  it('is named after the basename without its extension, sanitised to a valid server name', () => {
    const nameOf = (command: string): string => upstreamFromCommand(command, []).name;
    expect(nameOf('/usr/bin/python3')).toBe('python3');
    expect(nameOf('C:\\Program Files\\nodejs\\npx.cmd')).toBe('npx');
    expect(nameOf('./my server.sh')).toBe('my_server');
    expect(nameOf('weird__name')).toBe('weird_name');
    expect(nameOf('.hidden')).toBe('hidden');
    expect(nameOf('@@@')).toBe('upstream');
  });

  // Regression: every upstream given on the command line through npx was named "npx" in every log.
  it('is named after the package a launcher runs, or the script a runtime runs', () => {
    const nameOf = (command: string, ...args: string[]): string => upstreamFromCommand(command, args).name;
    expect(nameOf('npx', '-y', '@scope/server-x@1.2.3', '--flag')).toBe('server-x');
    expect(nameOf('npx', '--yes', '-p', 'other-pkg', 'mcp-thing')).toBe('mcp-thing');
    expect(nameOf('/usr/local/bin/npx.cmd', 'plain-server')).toBe('plain-server');
    expect(nameOf('uvx', 'mcp-server-fetch==0.6')).toBe('mcp-server-fetch');
    expect(nameOf('uvx', '--from', 'git+https://x/y', 'mcp-server-git')).toBe('mcp-server-git');
    expect(nameOf('bunx', '@org/weather@latest')).toBe('weather');
    expect(nameOf('node', '/home/me/servers/weather/build/weather.js')).toBe('weather');
    expect(nameOf('node', '--enable-source-maps', 'my-server/dist/index.js')).toBe('my-server');
    expect(nameOf('python3', 'tools/notes_server.py')).toBe('notes_server');
    expect(nameOf('npx')).toBe('npx');
    expect(nameOf('docker', 'run', '-i', 'mcp/github')).toBe('docker');
  });

  it('copies the arguments rather than keeping the caller’s array', () => {
    const args = ['a'];
    const upstream = upstreamFromCommand('x', args);
    args.push('b');
    expect(upstream).toMatchObject({ args: ['a'] });
  });
});
