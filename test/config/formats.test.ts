import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config/load-config-file.js';

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/configs/${name}`, import.meta.url));

describe('config formats', () => {
  it('reads a Claude Desktop block, expanding ${VAR} in env and skipping a disabled entry', () => {
    const path = fixture('claude-desktop.json');
    const config = loadConfigFile(path, { GITHUB_TOKEN: 'ghp_secret' });
    expect(config).toEqual({
      path,
      settings: {},
      logging: {},
      upstreams: [
        {
          name: 'filesystem',
          transport: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
          env: {},
          policy: {},
        },
        {
          name: 'github',
          transport: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-github'],
          env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_secret' },
          policy: {},
        },
      ],
    });
  });

  it("reads Claude Code's .mcp.json: http with headers, sse, typed stdio, and a url with no type as http", () => {
    const path = fixture('claude-code.mcp.json');
    const config = loadConfigFile(path, { API_KEY: 'k-123' });
    expect(config.upstreams).toEqual([
      {
        name: 'api',
        transport: 'http',
        url: 'https://api.example.com/mcp',
        headers: { Authorization: 'Bearer k-123' },
        policy: {},
        configFile: path,
      },
      { name: 'events', transport: 'sse', url: 'https://events.example.com/sse', headers: {}, policy: {}, configFile: path },
      {
        name: 'local',
        transport: 'stdio',
        command: 'node',
        args: ['server.js', '--log-level', 'info'],
        env: {},
        cwd: fixture('tools'),
        policy: {},
      },
      { name: 'untyped', transport: 'http', url: 'https://untyped.example.com/mcp', headers: {}, policy: {}, configFile: path },
    ]);
  });

  it('takes ${VAR:-default} from the environment when the variable is set', () => {
    const config = loadConfigFile(fixture('claude-code.mcp.json'), {
      API_KEY: 'k',
      API_BASE_URL: 'http://localhost:8080',
      LOG_LEVEL: 'debug',
    });
    const [api, , local] = config.upstreams;
    expect(api).toMatchObject({ url: 'http://localhost:8080/mcp' });
    expect(local).toMatchObject({ args: ['server.js', '--log-level', 'debug'] });
  });

  it("reads VS Code's servers key, ignoring top-level inputs and expanding ${env:VAR}", () => {
    const config = loadConfigFile(fixture('vscode-mcp.json'), { REMOTE_TOKEN: 'tok' });
    expect(config.upstreams).toEqual([
      {
        name: 'memory',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-memory'],
        env: {},
        policy: {},
      },
      {
        name: 'remote',
        transport: 'http',
        url: 'https://mcp.example.com/mcp',
        headers: { 'X-Token': 'tok' },
        policy: {},
        configFile: fixture('vscode-mcp.json'),
      },
    ]);
  });

  it('accepts and ignores the tolerated keys, and reads allow, deny and settings', () => {
    const config = loadConfigFile(fixture('policies-and-settings.json'), {});
    expect(config.upstreams).toEqual([
      {
        name: 'github',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-github'],
        env: {},
        policy: { allow: ['get_*', 'search_*', 'list_?ssues'], deny: ['*_secret*'] },
      },
    ]);
    expect(config.settings).toEqual({
      memoryMaxBytes: 64 * 1024 * 1024,
      yieldMs: 5_000,
      toolCallTimeoutMs: 120_000,
      pool: 0,
    });
  });
});
