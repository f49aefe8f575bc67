import { chmodSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { MAX_UPSTREAMS, parseConfig } from '../../src/config/parse-config.js';
import { parseJsonc } from '../../src/config/parse-jsonc.js';
import { loadConfigFile } from '../../src/config/load-config-file.js';
import { LOG_SETTINGS, SETTINGS, LOCATION_SETTINGS, SWITCH_SETTINGS } from '../../src/config/settings.js';
import { makeTempDir } from '../support/temp-dirs.js';

let dir: string;
beforeEach(() => {
  dir = makeTempDir('config');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(content: unknown, name = 'servers.json'): string {
  const file = join(dir, name);
  writeFileSync(file, typeof content === 'string' || Buffer.isBuffer(content) ? content : JSON.stringify(content, null, 2));
  return file;
}

/** The one error loading `content` gives, as its message without the `CONFIG_INVALID: <file>: ` head. */
function detailOf(content: unknown, env: Record<string, string> = {}): string {
  const file = writeConfig(content);
  try {
    loadConfigFile(file, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const configError = error as ConfigError;
    expect(configError.code).toBe('CONFIG_INVALID');
    expect(configError.message).toBe(`CONFIG_INVALID: ${file}: ${configError.detail}`);
    return configError.detail;
  }
  throw new Error('the config loaded without an error');
}

const server = (entry: Record<string, unknown>): unknown => ({ mcpServers: { github: entry } });

describe('config errors: the file itself', () => {
  it('names a missing file', () => {
    const file = join(dir, 'absent.json');
    expect(() => loadConfigFile(file)).toThrow(`CONFIG_INVALID: ${file}: no such file; check the path`);
  });

  it('names a directory given as the file', () => {
    expect(() => loadConfigFile(dir)).toThrow(`CONFIG_INVALID: ${dir}: is a directory; give the path of the JSON file in it`);
  });

  it.skipIf(process.getuid?.() === 0)('names a file it may not read', () => {
    const file = writeConfig(server({ command: 'x' }));
    chmodSync(file, 0o000);
    expect(() => loadConfigFile(file)).toThrow(
      `CONFIG_INVALID: ${file}: can't be read (EACCES); check that it exists and its permissions`,
    );
  });

  it("names a file it can't read for another reason, with the system's code", () => {
    const file = join(dir, 'loop.json');
    symlinkSync(join(dir, 'other.json'), file);
    symlinkSync(file, join(dir, 'other.json'));
    expect(() => loadConfigFile(file)).toThrow(
      `CONFIG_INVALID: ${file}: can't be read (ELOOP); check that it exists and its permissions`,
    );
  });

  it('refuses a file that is not UTF-8', () => {
    expect(detailOf(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))).toBe('is not UTF-8 text; save it as UTF-8');
  });

  it('refuses an empty file', () => {
    expect(detailOf('  \n')).toBe('is empty; it should hold {"mcpServers": {...}}');
  });

  it("takes comments and trailing commas, as VS Code's mcp.json has them", () => {
    const file = writeConfig(
      '{\n  // my servers\n  "servers": {\n    /* the one */ "a": { "command": "x", "args": ["y",], },\n  },\n}\n',
    );
    expect(loadConfigFile(file).upstreams).toMatchObject([{ name: 'a', command: 'x', args: ['y'] }]);
  });

  it('gives the line and column of a missing comma', () => {
    const text = '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": { "command": "y" }\n  }\n}\n';
    expect(detailOf(text)).toBe(
      'is not valid JSON at line 4, column 5: expected "," between two values (a comma may be missing)',
    );
  });

  it('gives the line and column of a string never closed, a single quote and a comment never closed', () => {
    expect(detailOf('{"mcpServers": {"a": "b}')).toBe('is not valid JSON at line 1, column 22: a string is never closed');
    expect(detailOf("{\n'mcpServers': {}}")).toMatch(/^is not valid JSON at line 2, column 1: unexpected character/);
    expect(detailOf('{"mcpServers": {}} /* open')).toBe('is not valid JSON at line 1, column 20: a /* comment is never closed');
  });

  it('keeps a key named __proto__ as a key, not a prototype', () => {
    const parsed = parseJsonc('{"a": {"__proto__": {"x": 1}, "b": 2,}}') as { value: { a: object } };
    expect(Object.keys(parsed.value.a)).toEqual(['__proto__', 'b']);
    expect(Object.getPrototypeOf(parsed.value.a)).toBe(Object.prototype);
  });

  it('reads a file nested 100,000 levels deep without overflowing, and says what is wrong with it', () => {
    const text = `{"mcpServers": {"a": {"command": "x", "env": ${'['.repeat(100_000)}${']'.repeat(100_000)}}}}`;
    expect(detailOf(text)).toBe(
      'is not valid JSON at line 1, column 1: nested deeper than a config file can be (thousands of levels)',
    );
  });

  it('accepts a byte-order mark before the JSON', () => {
    const file = writeConfig(`\uFEFF${JSON.stringify(server({ command: 'x' }))}`);
    expect(loadConfigFile(file).upstreams).toHaveLength(1);
  });
});

describe('config errors: the top level', () => {
  // Regression: "setting": {...} started the server with exit 0 and none of the settings.
  it.each([
    ['setting', 'settings'],
    ['Settings', 'settings'],
    ['mcpServer', 'mcpServers'],
    ['mcp_servers', 'mcpServers'],
  ])('refuses the top-level key "%s" as a typo of "%s"', (typo, meant) => {
    expect(detailOf({ mcpServers: { a: { command: 'x' } }, [typo]: {} })).toBe(
      `has a top-level key "${typo}"; did you mean "${meant}"? (it would otherwise be ignored)`,
    );
  });

  it("leaves alone the keys of a client's own config: Claude Desktop's globalShortcut, VS Code's inputs", () => {
    const file = writeConfig(
      JSON.stringify({ mcpServers: { a: { command: 'x' } }, globalShortcut: 'Ctrl+Space', inputs: [], preferences: {} }),
    );
    expect(loadConfigFile(file).upstreams).toHaveLength(1);
  });

  it('refuses a value that is not an object', () => {
    expect(detailOf([1])).toBe('the file must hold a JSON object such as {"mcpServers": {...}} (got array)');
  });

  it('refuses both mcpServers and servers', () => {
    expect(detailOf({ mcpServers: { a: { command: 'x' } }, servers: { b: { command: 'y' } } })).toBe(
      'has both "mcpServers" and "servers"; keep one of them, holding every server',
    );
  });

  it('refuses a file with neither mcpServers nor servers', () => {
    expect(detailOf({ inputs: [] })).toBe(
      'has no "mcpServers" (or "servers") object naming the servers, as in {"mcpServers": {"name": {"command": "..."}}}',
    );
  });

  it('refuses a server list that is not an object', () => {
    expect(detailOf({ servers: [{ command: 'x' }] })).toBe('servers must be an object of servers by name (got array)');
  });

  it('refuses an empty server list', () => {
    expect(detailOf({ mcpServers: {} })).toBe('mcpServers is empty; add at least one server');
  });

  it('refuses more enabled servers than MAX_UPSTREAMS, naming the count and the cap, and counts only enabled ones', () => {
    const entries = (count: number, extra: object = {}): Record<string, object> =>
      Object.fromEntries(
        Array.from({ length: count }, (_, i) => [`s${i}`, { type: 'http', url: 'http://127.0.0.1:1/mcp', ...extra }]),
      );
    expect(detailOf({ mcpServers: entries(MAX_UPSTREAMS + 1) })).toBe(
      `mcpServers enables ${MAX_UPSTREAMS + 1} servers, past the cap of ${MAX_UPSTREAMS} one codemode-mcp can front; ` +
        'disable some ("disabled": true) or split them across several configs, each served by its own codemode-mcp',
    );
    expect(detailOf({ servers: { ...entries(10_000), x: { command: 'x' } } })).toMatch(
      /^servers enables 10001 servers, past the cap of 256 /,
    );
    const atCap = { mcpServers: { ...entries(MAX_UPSTREAMS), ...{ off: { command: 'x', disabled: true } } } };
    expect(loadConfigFile(writeConfig(atCap), {}).upstreams).toHaveLength(MAX_UPSTREAMS);
  });

  it('refuses a list whose every server is disabled', () => {
    expect(detailOf(server({ command: 'x', disabled: true }))).toBe(
      'every server in mcpServers is disabled; enable at least one',
    );
  });
});

describe('config errors: a server entry', () => {
  it('names the path of a command that is not a string', () => {
    expect(detailOf(server({ command: 42 }))).toBe('mcpServers.github.command must be a string (got number)');
  });

  it('names the index of an argument that is not a string', () => {
    expect(detailOf(server({ command: 'x', args: ['--port', 8080] }))).toBe(
      'mcpServers.github.args[1] must be a string (got number)',
    );
  });

  it('names the variable of an env value that is not a string', () => {
    expect(detailOf(server({ command: 'x', env: { DEBUG: true } }))).toBe(
      'mcpServers.github.env.DEBUG must be a string (got boolean)',
    );
  });

  it('names a header map that is not an object', () => {
    expect(detailOf(server({ url: 'https://x.example', headers: ['a'] }))).toBe(
      'mcpServers.github.headers must be an object (got array)',
    );
  });

  it('refuses an entry that is not an object', () => {
    expect(detailOf({ servers: { github: 'npx' } })).toBe('servers.github must be an object (got string)');
  });

  it('refuses a disabled flag that is not a boolean', () => {
    expect(detailOf(server({ command: 'x', disabled: 'yes' }))).toBe(
      'mcpServers.github.disabled must be true or false (got string)',
    );
  });

  it('refuses an entry with neither command nor url', () => {
    expect(detailOf(server({ args: ['-y'] }))).toBe(
      'mcpServers.github needs "command" (to start the server over stdio) or "url" (to reach it over http or sse)',
    );
  });

  it('names an unknown key and suggests the known one it resembles', () => {
    expect(detailOf(server({ comand: 'npx' }))).toBe(
      'mcpServers.github has unknown key "comand" (did you mean "command"?); it takes type, command, args, env, cwd, allow, deny, approvals, resources, prompts',
    );
    expect(detailOf(server({ command: 'npx', arg: ['-y'] }))).toBe(
      'mcpServers.github has unknown key "arg" (did you mean "args"?); it takes type, command, args, env, cwd, allow, deny, approvals, resources, prompts',
    );
  });

  it("names an unknown key other clients use but this server can't honour", () => {
    expect(detailOf({ servers: { github: { type: 'stdio', command: 'npx', envFile: '.env' } } })).toBe(
      'servers.github has unknown key "envFile"; it takes type, command, args, env, cwd, allow, deny, approvals, resources, prompts',
    );
  });

  it('refuses a url on a stdio entry', () => {
    expect(detailOf(server({ type: 'stdio', command: 'x', url: 'https://x.example' }))).toBe(
      'mcpServers.github has unknown key "url"; it takes type, command, args, env, cwd, allow, deny, approvals, resources, prompts',
    );
  });

  it('refuses an unknown type, listing the known ones', () => {
    expect(detailOf(server({ type: 'websocket', url: 'wss://x.example' }))).toBe(
      'mcpServers.github.type must be "stdio", "http" or "sse" (got "websocket")',
    );
  });

  it('refuses an untyped entry with both command and url', () => {
    expect(detailOf(server({ command: 'x', url: 'https://x.example' }))).toBe(
      'mcpServers.github has both "command" and "url"; keep "command" to start it over stdio, or "url" to reach it over http',
    );
  });

  it('refuses a remote entry without a url', () => {
    expect(detailOf(server({ type: 'sse' }))).toBe('mcpServers.github.url is required');
  });

  it('refuses a url that is not http or https, quoting it as written', () => {
    expect(detailOf(server({ url: 'ftp://${HOST}/mcp' }), { HOST: 'x.example' })).toBe(
      'mcpServers.github.url must be an http:// or https:// URL (got "ftp://${HOST}/mcp")',
    );
  });

  it('refuses an empty command', () => {
    expect(detailOf(server({ command: '' }))).toBe('mcpServers.github.command must not be empty');
  });

  it('refuses a server name with characters a tool-name prefix cannot hold', () => {
    expect(detailOf({ mcpServers: { 'git hub': { command: 'x' } } })).toBe(
      'mcpServers["git hub"]: a server name may hold only letters, digits, "_" and "-", since it becomes the ' +
        "prefix of its tools' names (<server>__<tool>); rename the server",
    );
  });

  it('refuses a server name holding "__", which would make prefixed tool names ambiguous', () => {
    expect(detailOf({ mcpServers: { git__hub: { command: 'x' } } })).toBe(
      'mcpServers.git__hub: a server name can\'t contain "__", which separates server from tool in <server>__<tool>; rename the server',
    );
  });
});

describe('config errors: allow and deny', () => {
  it('refuses an empty allow list', () => {
    expect(detailOf(server({ command: 'x', allow: [] }))).toBe(
      'mcpServers.github.allow must list at least one glob; leave allow out to allow every tool',
    );
  });

  it('refuses an empty glob', () => {
    expect(detailOf(server({ command: 'x', deny: ['a', ''] }))).toBe('mcpServers.github.deny[1] must not be an empty glob');
  });

  it('refuses a glob that is not a string', () => {
    expect(detailOf(server({ command: 'x', allow: 'get_*' }))).toBe('mcpServers.github.allow must be an array (got string)');
  });

  it('refuses a glob written with the server prefix, since globs match the upstream name', () => {
    expect(detailOf(server({ command: 'x', allow: ['get_*', 'github__create_issue'] }))).toBe(
      'mcpServers.github.allow[1] is "github__create_issue", but globs match the tool\'s own name: write "create_issue"',
    );
  });
});

describe('config errors: the resources and prompts policies', () => {
  it('reads resources and prompts as allow/deny pairs of their own', () => {
    const parsed = parseConfig(
      server({ command: 'x', deny: ['t'], resources: { allow: ['file:///docs/*'] }, prompts: { deny: ['p*'] } }),
      {
        path: null,
        env: {},
      },
    );
    expect(parsed.upstreams[0]).toMatchObject({
      policy: { deny: ['t'] },
      resourcePolicy: { allow: ['file:///docs/*'] },
      promptPolicy: { deny: ['p*'] },
    });
  });

  it('refuses an unknown key inside resources, and an empty allow, naming the kind', () => {
    expect(detailOf(server({ command: 'x', resources: { allow: [] } }))).toBe(
      'mcpServers.github.resources.allow must list at least one glob; leave allow out to allow every resource',
    );
    expect(detailOf(server({ command: 'x', prompts: { alow: ['x'] } }))).toMatch(
      /^mcpServers\.github\.prompts has unknown key "alow"/,
    );
  });

  it('refuses a prompt glob written with the server prefix, and lets a URI glob hold "__"', () => {
    expect(detailOf(server({ command: 'x', prompts: { allow: ['github__review'] } }))).toBe(
      'mcpServers.github.prompts.allow[0] is "github__review", but globs match the prompt\'s own name: write "review"',
    );
    const parsed = parseConfig(server({ command: 'x', resources: { allow: ['github__*'] } }), { path: null, env: {} });
    expect(parsed.upstreams[0]).toMatchObject({ resourcePolicy: { allow: ['github__*'] } });
  });
});

describe('config errors: settings', () => {
  const withSettings = (settings: unknown): unknown => ({ mcpServers: { a: { command: 'x' } }, settings });

  it('refuses an unknown setting, suggesting the close one and listing them all', () => {
    expect(detailOf(withSettings({ yieldMS: 100 }))).toBe(
      `settings.yieldMS is not a setting (did you mean "yieldMs"?); the settings are ${[...Object.keys(SETTINGS), 'expose', 'skillsSaveOverHttp', 'approvals', 'approvalFallback', 'approvalVia', 'approvalOpenBrowser', 'approvalPageUrl', 'fetch', 'tokenize', 'typeCheck', ...Object.keys(SWITCH_SETTINGS), ...Object.keys(LOG_SETTINGS), ...Object.keys(LOCATION_SETTINGS)].join(', ')}`,
    );
    expect(Object.keys(SETTINGS).slice(0, 3)).toEqual(['yieldMs', 'maxYieldMs', 'scriptLifetimeMs']);
  });

  it('refuses an expose that is not a list of globs, saying what it takes', () => {
    expect(detailOf(withSettings({ expose: 'search' }))).toBe(
      'settings.expose must be a list of tool-name globs, as in ["search", "github__get_*"] (got string)',
    );
    expect(detailOf(withSettings({ expose: ['search', ''] }))).toBe(
      'settings.expose[1] must be a non-empty glob over tool names as scripts see them (got an empty string)',
    );
  });

  it('takes skillsSaveOverHttp as true or false only', () => {
    expect(detailOf(withSettings({ skillsSaveOverHttp: 'yes' }))).toBe(
      'settings.skillsSaveOverHttp must be true or false (got string)',
    );
  });

  it('refuses an out-of-range setting, naming it and its range', () => {
    expect(detailOf(withSettings({ memoryMaxBytes: 1024 * 1024 }))).toBe(
      'settings.memoryMaxBytes must be a whole number between 4 MiB and 2 GiB; got 1 MiB',
    );
  });

  it('refuses a value in a unit the setting does not take', () => {
    expect(detailOf(withSettings({ yieldMs: '2h' }))).toBe(
      'settings.yieldMs takes a whole number of milliseconds, or a number with ms, s or min (as in 5s); got "2h"',
    );
  });

  it('refuses a value that is neither a number nor a string', () => {
    expect(detailOf(withSettings({ pool: true }))).toBe('settings.pool takes a whole number; got a boolean');
  });

  it('refuses settings that are not an object', () => {
    expect(detailOf(withSettings([]))).toBe('settings must be an object (got array)');
  });
});
