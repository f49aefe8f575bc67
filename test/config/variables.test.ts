import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { VariableError, expandVariables } from '../../src/config/expand-variables.js';
import { parseConfig } from '../../src/config/parse-config.js';

const env = { HOME: '/home/u', EMPTY: '', TOKEN: 't0k' };

describe('${VAR} expansion', () => {
  it('replaces ${VAR} with its value, several times in one string', () => {
    expect(expandVariables('${HOME}/a:${HOME}/b', env)).toBe('/home/u/a:/home/u/b');
  });

  it('uses the default of ${VAR:-default} when the variable is unset or empty, as a shell does', () => {
    expect(expandVariables('${NOPE:-fallback}', env)).toBe('fallback');
    expect(expandVariables('${EMPTY:-fallback}', env)).toBe('fallback');
    expect(expandVariables('${TOKEN:-fallback}', env)).toBe('t0k');
    expect(expandVariables('${NOPE:-}', env)).toBe('');
    expect(expandVariables('${NOPE:-a:-b c}', env)).toBe('a:-b c');
  });

  it('expands a set but empty ${VAR} to the empty string', () => {
    expect(expandVariables('[${EMPTY}]', env)).toBe('[]');
  });

  it("reads VS Code's ${env:VAR} as ${VAR}", () => {
    expect(expandVariables('Bearer ${env:TOKEN}', env)).toBe('Bearer t0k');
  });

  it('leaves $$, $VAR and a lone $ alone', () => {
    expect(expandVariables('$$ $HOME costs $5 $', env)).toBe('$$ $HOME costs $5 $');
    expect(expandVariables('$${HOME}', env)).toBe('$/home/u');
  });

  it('refuses an unset ${VAR} without a default, naming it and the way out', () => {
    expect(() => expandVariables('${NOPE}', env)).toThrow(
      new VariableError('uses ${NOPE}, which is not set in the environment; set NOPE or write ${NOPE:-default}'),
    );
  });

  it('refuses a ${...} that is not a variable reference rather than pass it through', () => {
    expect(() => expandVariables('${not a name}', env)).toThrow(
      'has ${not a name}, which is not a variable reference; write ${NAME} or ${NAME:-default}',
    );
    expect(() => expandVariables('${}', env)).toThrow('has ${}, which is not a variable reference');
  });

  // A new user's config copied from VS Code's .vscode/mcp.json was refused as an unset variable.
  it.each(['${workspaceFolder}', '${workspaceFolder}/src', '${userHome}', '${input:github_token}', '${config:python.path}'])(
    "refuses VS Code's own %s, saying VS Code expands it and what to write instead",
    (text) => {
      expect(() => expandVariables(text, {})).toThrow(
        /a variable VS Code expands in its own mcp\.json; codemode-mcp expands only environment variables/,
      );
    },
  );

  it('refuses a default holding another ${...}', () => {
    expect(() => expandVariables('${A:-${B}}', env)).toThrow("has ${A:-${B}: a default can't hold another ${...}");
  });
});

describe('${VAR} in a config', () => {
  const load = (entry: Record<string, unknown>): unknown =>
    parseConfig({ mcpServers: { api: entry } }, { path: '/etc/codemode/servers.json', env }).upstreams[0];

  it('expands command, args, env values, cwd, url and header values, but not keys', () => {
    expect(
      load({ command: '${HOME}/bin/srv', args: ['--token=${TOKEN}'], env: { '${HOME}': '${HOME}' }, cwd: '${HOME}/w' }),
    ).toEqual({
      name: 'api',
      transport: 'stdio',
      command: '/home/u/bin/srv',
      args: ['--token=t0k'],
      env: { '${HOME}': '/home/u' },
      cwd: '/home/u/w',
      policy: {},
    });
    expect(load({ url: 'https://x.example/${TOKEN}', headers: { 'X-${TOKEN}': '${TOKEN}' } })).toMatchObject({
      url: 'https://x.example/t0k',
      headers: { 'X-${TOKEN}': 't0k' },
    });
  });

  it('names the path where an unset variable appears', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ command: '${LAUNCHER}' }, 'mcpServers.api.command'],
      [{ command: 'x', args: ['a', '${ARG}'] }, 'mcpServers.api.args[1]'],
      [{ command: 'x', env: { GITHUB_TOKEN: '${GH}' } }, 'mcpServers.api.env.GITHUB_TOKEN'],
      [{ command: 'x', cwd: '${DIR}' }, 'mcpServers.api.cwd'],
      [{ url: '${URL}' }, 'mcpServers.api.url'],
      [{ url: 'https://x.example', headers: { Authorization: 'Bearer ${KEY}' } }, 'mcpServers.api.headers.Authorization'],
    ];
    for (const [entry, path] of cases) {
      expect(() => load(entry)).toThrow(ConfigError);
      expect(() => load(entry)).toThrow(
        new RegExp(`^CONFIG_INVALID: /etc/codemode/servers\\.json: ${path.replace(/[.[\]]/g, '\\$&')} uses \\$\\{`),
      );
    }
  });

  it('does not expand a disabled entry, so its missing variables are no error', () => {
    const config = parseConfig(
      { mcpServers: { on: { command: 'x' }, off: { command: '${NOPE}', disabled: true } } },
      { path: null, env: {} },
    );
    expect(config.upstreams.map((upstream) => upstream.name)).toEqual(['on']);
  });

  it('reads process.env when no environment is given', () => {
    const name = 'CODEMODE_CONFIG_TEST_VARIABLE';
    process.env[name] = 'from-process';
    try {
      const config = parseConfig({ mcpServers: { a: { command: `\${${name}}` } } }, { path: null });
      expect(config.upstreams[0]).toMatchObject({ command: 'from-process' });
    } finally {
      delete process.env[name];
    }
  });
});
