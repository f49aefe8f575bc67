import { describe, expect, it } from 'vitest';
import { upstreamFromCommand } from '../../src/config/upstream-from-command.js';

describe('the upstream of `-- <command> [args...]`', () => {
  it('is one stdio upstream named after the command, with an empty env and no policy', () => {
    expect(upstreamFromCommand('npx', ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'])).toEqual({
      name: 'npx',
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

  it('copies the arguments rather than keeping the caller’s array', () => {
    const args = ['a'];
    const upstream = upstreamFromCommand('x', args);
    args.push('b');
    expect(upstream).toMatchObject({ args: ['a'] });
  });
});
