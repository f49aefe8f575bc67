import { mkdirSync, rmSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT_CONFIG, EXIT_USAGE, isCliExit, parseCli, type CliExit, type CliInvocation } from '../../src/cli/parse-cli.js';
import { DEFAULT_SETTINGS } from '../../src/config/settings.js';
import { makeTempDir } from '../support/temp-dirs.js';

let dir: string;
beforeEach(() => {
  dir = makeTempDir('cli');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(value: unknown, name = 'servers.json'): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

function invocation(argv: string[], env: Record<string, string> = {}): CliInvocation {
  const result = parseCli(argv, { env, cwd: dir, homedir: dir });
  if (isCliExit(result)) throw new Error(`expected an invocation, got exit ${result.exit}: ${result.stderr ?? ''}`);
  return result;
}

function exitOf(argv: string[]): CliExit {
  const result = parseCli(argv, { env: {}, cwd: dir, homedir: dir });
  if (!isCliExit(result)) throw new Error(`expected an exit, got ${JSON.stringify(result)}`);
  return result;
}

const SERVERS = { mcpServers: { fs: { command: 'npx', args: ['-y', 'server-filesystem', '/tmp'] } } };

const TWO_FORMS = '  codemode-mcp --config <file> [options]\n  codemode-mcp [options] -- <command> [args...]\n';

describe('the two forms', () => {
  it('reads --config <file> into the upstreams and settings it names', () => {
    const file = writeConfig({ ...SERVERS, settings: { pool: 0 } });
    expect(invocation(['--config', file])).toEqual({
      command: 'serve',
      upstreams: [
        { name: 'fs', transport: 'stdio', command: 'npx', args: ['-y', 'server-filesystem', '/tmp'], env: {}, policy: {} },
      ],
      settings: { ...DEFAULT_SETTINGS, pool: 0 },
      logging: { logLevel: 'info', logFile: null },
      configPath: file,
    });
  });

  it('takes a relative --config from the working directory, and ~ as the home directory', () => {
    const file = writeConfig(SERVERS);
    expect(invocation(['--config', 'servers.json']).configPath).toBe(file);
    expect(invocation(['--config=~/servers.json']).configPath).toBe(file);
  });

  it('passes everything after -- to the upstream untouched, flags and further -- included', () => {
    const argv = ['--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '--help', '--config', 'x', '--', '/tmp'];
    expect(invocation(argv)).toEqual({
      command: 'serve',
      upstreams: [
        {
          name: 'server-filesystem',
          transport: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '--help', '--config', 'x', '--', '/tmp'],
          env: {},
          policy: {},
        },
      ],
      settings: DEFAULT_SETTINGS,
      logging: { logLevel: 'info', logFile: null },
      configPath: null,
    });
  });

  it('reads --log-level and --log-file, a flag over the config file, and makes the log file absolute', () => {
    const file = writeConfig({ ...SERVERS, settings: { logLevel: 'debug', logFile: 'from-config.log' } });
    expect(invocation(['--config', file]).logging).toEqual({ logLevel: 'debug', logFile: join(dir, 'from-config.log') });
    expect(invocation(['--config', file, '--log-level', 'error', '--log-file', 'x.log']).logging).toEqual({
      logLevel: 'error',
      logFile: join(dir, 'x.log'),
    });
    // tools and run print what was asked for; their log is at warn unless told otherwise.
    expect(invocation(['tools', '--', 'npx', 'server']).logging.logLevel).toBe('warn');
    expect(invocation(['tools', '--log-level', 'info', '--', 'npx', 'server']).logging.logLevel).toBe('info');
  });

  it('reads --state-dir and --state-url, a flag over the config file, the directory made absolute as a log file is', () => {
    const file = writeConfig({ ...SERVERS, settings: { stateDir: 'state', stateMaxKeys: 50 } });
    expect(invocation(['--config', file]).settings).toMatchObject({
      stateDir: join(dir, 'state'),
      stateUrl: null,
      stateMaxKeys: 50,
    });
    expect(invocation(['--config', file, '--state-dir', '~/other']).settings.stateDir).toBe(join(dir, 'other'));
    const url = 'rediss://user:pass@cache.internal:6380/2';
    expect(invocation(['--state-url', url, '--state-max-bytes', '1GiB', '--', 'npx', 'server']).settings).toMatchObject({
      stateDir: null,
      stateUrl: url,
      stateMaxBytes: 1024 ** 3,
    });
  });

  it('reads the telemetry switches and --audit-log: a switch flag turns on what the file left off, the path made absolute', () => {
    const file = writeConfig({ ...SERVERS, settings: { auditLog: 'audit.jsonl', auditArguments: true } });
    expect(invocation(['--config', file]).settings).toMatchObject({
      auditLog: join(dir, 'audit.jsonl'),
      auditArguments: true,
      otel: false,
      otelScriptCode: false,
    });
    expect(invocation(['--config', file, '--otel', '--otel-script-code']).settings).toMatchObject({
      otel: true,
      otelScriptCode: true,
    });
    expect(invocation(['--audit-log', '~/a.jsonl', '--', 'npx', 'server']).settings.auditLog).toBe(join(dir, 'a.jsonl'));
    expect(invocation(['--', 'npx', 'server']).settings).toMatchObject({ otel: false, auditLog: null, auditArguments: false });
  });

  it('refuses a switch in the config file that is not true or false, and an empty audit log path', () => {
    const file = writeConfig({ ...SERVERS, settings: { otel: 'yes' } });
    expect(exitOf(['--config', file]).stderr).toContain('settings.otel must be true or false (got string)');
    expect(exitOf(['--audit-log', '', '--', 'npx']).stderr).toContain(
      'SETTING_INVALID: auditLog (--audit-log) takes the path of a file to append the audit log to; got ""',
    );
  });

  it('refuses state kept both in a directory and in Redis, wherever each was set', () => {
    const both = `codemode-mcp: SETTING_INVALID: stateDir (--state-dir) and stateUrl (--state-url) each say where scripts' state is kept; set one of them: a directory for one server, a Redis URL for several\n`;
    expect(exitOf(['--state-dir', 'x', '--state-url', 'redis://localhost', '--', 'npx']).stderr).toContain(both);
    const file = writeConfig({ ...SERVERS, settings: { stateDir: 'state' } });
    expect(exitOf(['--config', file, '--state-url', 'redis://localhost']).stderr).toContain(both);
  });

  it('refuses a state URL that is not redis:// or rediss://, quoting only its scheme', () => {
    expect(exitOf(['--state-url', 'http://user:secret@host', '--', 'npx']).stderr).toContain(
      'SETTING_INVALID: stateUrl (--state-url) takes a redis:// or rediss:// URL, as in redis://localhost:6379; got a http: URL',
    );
    expect(exitOf(['--state-url', 'localhost:6379', '--', 'npx']).stderr).toContain('got a localhost: URL');
    expect(exitOf(['--state-url', 'not a url', '--', 'npx']).stderr).toContain('got text that is not a URL');
    const file = writeConfig({ ...SERVERS, settings: { stateUrl: 6379 } });
    expect(exitOf(['--config', file]).stderr).toContain('settings.stateUrl takes a redis:// or rediss:// URL');
  });

  it('refuses a state value limit past the whole state limit', () => {
    expect(exitOf(['--state-value-max-bytes', '2MiB', '--state-max-bytes', '1MiB', '--', 'npx']).stderr).toContain(
      'SETTING_INVALID: stateValueMaxBytes (--state-value-max-bytes, 2 MiB) must not be past stateMaxBytes (--state-max-bytes, 1 MiB), which holds every value',
    );
  });

  it('reads --skills-dir and settings.skillsDir, a flag over the file, each made absolute from where it was given', () => {
    mkdirSync(join(dir, 'conf'));
    const file = writeConfig({ ...SERVERS, settings: { skillsDir: 'team-skills' } }, 'conf/servers.json');
    expect(invocation(['--config', file]).settings.skillsDir).toBe(join(dir, 'conf', 'team-skills'));
    expect(invocation(['--config', file, '--skills-dir', 'mine']).settings.skillsDir).toBe(join(dir, 'mine'));
    expect(invocation(['--skills-dir', '~/s', '--', 'npx']).settings.skillsDir).toBe(join(dir, 's'));
    expect(invocation(['--', 'npx']).settings.skillsDir).toBeNull();
    expect(exitOf(['--skills-dir', ' ', '--', 'npx']).stderr).toContain(
      'SETTING_INVALID: skillsDir (--skills-dir) takes the path of a directory to keep skills in; got " "',
    );
  });

  it('reads skills list|show|rm with their directory, and no upstream', () => {
    const file = writeConfig({ ...SERVERS, settings: { skillsDir: 'from-config' } });
    expect(invocation(['skills', 'show', 'greet', '--config', file])).toMatchObject({
      command: 'skills',
      upstreams: [],
      settings: { skillsDir: join(dir, 'from-config') },
      logging: { logLevel: 'warn' },
      skills: { action: 'show', name: 'greet', json: false },
    });
    expect(invocation(['skills', 'list', '--json', '--skills-dir', 'x']).skills).toEqual({ action: 'list', json: true });
    expect(invocation(['skills', 'rm', 'old', '--skills-dir', 'x']).settings.skillsDir).toBe(join(dir, 'x'));
    expect(invocation(['skills']).skills).toEqual({ action: 'list', json: false });
    expect(invocation(['skills', '--skills-dir', 'before', 'list']).settings.skillsDir).toBe(join(dir, 'before'));
    expect(exitOf(['skills', 'show']).exit).toBe(EXIT_USAGE);
  });

  it('refuses a log level that is not one, suggesting the close one', () => {
    expect(exitOf(['--log-level', 'debg', '--', 'npx']).stderr).toContain(
      'SETTING_INVALID: logLevel (--log-level) must be "error", "warn", "info" or "debug" (got "debg"; did you mean "debug"?)',
    );
  });

  it('refuses neither form, showing both', () => {
    expect(exitOf([])).toEqual({
      exit: EXIT_USAGE,
      stderr: `codemode-mcp: name the MCP servers to front, in one of two ways:\n${TWO_FORMS}Run "codemode-mcp --help" for usage.\n`,
    });
  });

  it('refuses both forms at once, showing both', () => {
    const file = writeConfig(SERVERS);
    expect(exitOf(['--config', file, '--', 'npx', 'server'])).toEqual({
      exit: EXIT_USAGE,
      stderr: `codemode-mcp: give the MCP servers with --config or after "--", not both:\n${TWO_FORMS}Run "codemode-mcp --help" for usage.\n`,
    });
  });

  it('refuses a -- with no command after it', () => {
    expect(exitOf(['--pool', '1', '--']).stderr).toBe(
      `codemode-mcp: "--" must be followed by the command that starts the upstream server:\n${TWO_FORMS}Run "codemode-mcp --help" for usage.\n`,
    );
  });

  it('says where the upstream command goes when its -- is missing', () => {
    expect(exitOf(['npx', '-y', 'server-filesystem'])).toEqual({
      exit: EXIT_USAGE,
      stderr: `codemode-mcp: unexpected argument "npx"; an upstream command goes after "--":\n${TWO_FORMS}Run "codemode-mcp --help" for usage.\n`,
    });
  });

  it.each([
    ['tool', 'tools'],
    ['rn', 'run'],
    ['lgin', 'login'],
    ['logot', 'logout'],
    ['hlep', 'help'],
  ])('suggests the command a mistyped one meant: %s', (typed, meant) => {
    expect(exitOf([typed, '--config', 'servers.json'])).toEqual({
      exit: EXIT_USAGE,
      stderr: `codemode-mcp: unexpected argument "${typed}"; did you mean the command "codemode-mcp ${meant}"? Otherwise an upstream command goes after "--":\n${TWO_FORMS}Run "codemode-mcp --help" for usage.\n`,
    });
  });

  it('suggests no command for an operand far from every one, nor for a stray operand of a command', () => {
    expect(exitOf(['uvx', 'mcp-server-git']).stderr).toMatch(
      /^codemode-mcp: unexpected argument "uvx"; an upstream command goes after "--":\n/,
    );
    expect(exitOf(['tools', 'tool', '--config', 'servers.json']).stderr).toMatch(
      /^codemode-mcp: unexpected argument "tool"; an upstream command goes after "--":\n/,
    );
  });

  it('refuses an unknown flag, suggesting the close one', () => {
    expect(exitOf(['--yeild-ms', '5s', '--', 'npx'])).toEqual({
      exit: EXIT_USAGE,
      stderr: 'codemode-mcp: unknown option \'--yeild-ms\'\n(Did you mean --yield-ms?)\nRun "codemode-mcp --help" for usage.\n',
    });
  });

  it('refuses --config without its file', () => {
    expect(exitOf(['--config'])).toEqual({
      exit: EXIT_USAGE,
      stderr: 'codemode-mcp: option \'--config <file>\' argument missing\nRun "codemode-mcp --help" for usage.\n',
    });
  });

  it('exits with the config error, apart from usage errors, when the file is wrong', () => {
    const file = writeConfig({ mcpServers: { github: { command: 42 } } });
    expect(exitOf(['--config', file])).toEqual({
      exit: EXIT_CONFIG,
      stderr: `codemode-mcp: CONFIG_INVALID: ${file}: mcpServers.github.command must be a string (got number)\n`,
    });
    expect(exitOf(['--config', join(dir, 'absent.json')])).toEqual({
      exit: EXIT_CONFIG,
      stderr: `codemode-mcp: CONFIG_INVALID: ${join(dir, 'absent.json')}: no such file; check the path\n`,
    });
  });

  // Regression: CONFIG_INVALID lines were the one refusal at start without the program's name.
  it("starts every line of a config error with the program's name, whichever command read the file", () => {
    const bad = writeConfig({ mcpServers: { github: { command: 42 } }, settings: { pool: 1 } }, 'bad.json');
    const badSetting = writeConfig({ ...SERVERS, settings: { pool: 99 } }, 'bad-setting.json');
    const own = writeConfig({ mcpServers: { me: { command: 'npx', args: ['-y', 'codemode-mcp'] } } }, 'own.json');
    const exits = [
      exitOf(['--config', bad]),
      exitOf(['tools', '--config', badSetting]),
      exitOf(['run', '-', '--config', join(dir, 'absent.json')]),
      exitOf(['login', 'github', '--config', bad]),
      exitOf(['skills', 'list', '--config', badSetting]),
      exitOf(['--config', own]),
    ];
    for (const { exit, stderr } of exits) {
      expect(exit).toBe(EXIT_CONFIG);
      const lines = (stderr ?? '').trimEnd().split('\n');
      expect(lines.at(-1)).toMatch(/^codemode-mcp: CONFIG_INVALID: \//);
      for (const line of lines) expect(line).toMatch(/^codemode-mcp: /);
    }
    expect(exits[1]!.stderr).toBe(
      `codemode-mcp: CONFIG_INVALID: ${badSetting}: settings.pool must be a whole number between 0 and 16; got 99\n`,
    );
  });

  it('expands ${VAR} in the config file from the environment it is given', () => {
    const file = writeConfig({ mcpServers: { gh: { command: 'gh-mcp', env: { TOKEN: '${GH_TOKEN}' } } } });
    expect(invocation(['--config', file], { GH_TOKEN: 'secret' }).upstreams[0]).toMatchObject({ env: { TOKEN: 'secret' } });
  });
});

describe('the tools subcommand', () => {
  it('takes --config, like the server', () => {
    const file = writeConfig(SERVERS);
    expect(invocation(['tools', '--config', file])).toMatchObject({ command: 'tools', configPath: file });
  });

  it('takes -- <command>, like the server', () => {
    expect(invocation(['tools', '--', 'node', 'server.js'])).toMatchObject({
      command: 'tools',
      upstreams: [{ name: 'server', command: 'node', args: ['server.js'] }],
      configPath: null,
    });
  });

  it('reads flags given before the subcommand and after it, the later winning', () => {
    const result = invocation(['--pool', '1', '--yield-ms', '1s', 'tools', '--yield-ms', '2s', '--', 'x']);
    expect(result.settings).toMatchObject({ pool: 1, yieldMs: 2_000 });
  });

  it('refuses neither form, showing its own two forms', () => {
    expect(exitOf(['tools']).stderr).toBe(
      'codemode-mcp: name the MCP servers to front, in one of two ways:\n' +
        '  codemode-mcp tools --config <file> [options]\n' +
        '  codemode-mcp tools [options] -- <command> [args...]\n' +
        'Run "codemode-mcp tools --help" for usage.\n',
    );
  });
});

describe('the run subcommand', () => {
  it('takes its script file, resolved against the working directory, or - for stdin, with --json and settings before or after it', () => {
    const file = writeConfig(SERVERS);
    expect(invocation(['run', 'check.ts', '--config', file])).toMatchObject({
      command: 'run',
      script: { path: join(dir, 'check.ts'), json: false },
    });
    expect(invocation(['run', '-', '--json', '--pool', '0', '--', 'npx', 'x'])).toMatchObject({
      command: 'run',
      script: { path: '-', json: true },
      settings: { ...DEFAULT_SETTINGS, pool: 0 },
      upstreams: [{ command: 'npx', args: ['x'] }],
    });
  });

  it('exits 2 with its forms when the script or the servers are missing, or an operand is one too many', () => {
    for (const argv of [['run'], ['run', '--', 'npx', 'x'], ['run', 'a.js'], ['run', 'a.js', 'b.js', '--', 'npx']]) {
      const exit = exitOf(argv);
      expect(exit.exit, argv.join(' ')).toBe(EXIT_USAGE);
      expect(exit.stderr, argv.join(' ')).toContain(
        '  codemode-mcp run <file|-> [--json] [options] -- <command> [args...]\nRun "codemode-mcp run --help" for usage.\n',
      );
    }
  });
});

describe('setting flags', () => {
  it('takes plain numbers and unit suffixes', () => {
    const argv = ['--memory-max-bytes', '64MiB', '--yield-ms', '5s', '--script-lifetime-ms', '20min', '--pool=0'];
    expect(invocation([...argv, '--', 'x']).settings).toEqual({
      ...DEFAULT_SETTINGS,
      memoryMaxBytes: 64 * 1024 * 1024,
      yieldMs: 5_000,
      scriptLifetimeMs: 1_200_000,
      pool: 0,
    });
    expect(invocation(['--tool-call-timeout-ms', '1500', '--', 'x']).settings.toolCallTimeoutMs).toBe(1_500);
  });

  it('reads skillsSaveOverHttp from the config file, false by default', () => {
    expect(
      invocation(['--config', writeConfig({ ...SERVERS, settings: { skillsSaveOverHttp: true } })]).settings.skillsSaveOverHttp,
    ).toBe(true);
    expect(invocation(['--', 'x']).settings.skillsSaveOverHttp).toBe(false);
  });

  it("takes --expose more than once, the flags' globs replacing the config file's", () => {
    const file = writeConfig({ ...SERVERS, settings: { expose: ['a*'] } });
    expect(invocation(['--config', file]).settings.expose).toEqual(['a*']);
    expect(invocation(['--config', file, '--expose', 'search', '--expose=fs_*']).settings.expose).toEqual(['search', 'fs_*']);
    expect(invocation(['--', 'x']).settings.expose).toEqual([]);
    expect(exitOf(['--expose', '', '--', 'x']).stderr).toContain(
      'SETTING_INVALID: expose (--expose) must be a non-empty glob over tool names as scripts see them (got an empty string)',
    );
  });

  it('overrides the config file, which overrides the defaults', () => {
    const file = writeConfig({ ...SERVERS, settings: { yieldMs: '10s', pool: 5 } });
    expect(invocation(['--config', file, '--yield-ms', '20s']).settings).toEqual({
      ...DEFAULT_SETTINGS,
      yieldMs: 20_000,
      pool: 5,
    });
  });

  it('refuses a value out of range with a message naming the setting and its range', () => {
    expect(exitOf(['--memory-max-bytes', '1MiB', '--', 'x'])).toEqual({
      exit: EXIT_USAGE,
      stderr:
        'codemode-mcp: SETTING_INVALID: memoryMaxBytes (--memory-max-bytes) must be a whole number between 4 MiB and 2 GiB; got 1 MiB\n' +
        'Run "codemode-mcp --help" for usage.\n',
    });
    expect(exitOf(['--pool', '-1', '--', 'x']).stderr).toContain(
      'SETTING_INVALID: pool (--pool) must be a whole number between 0 and 16; got -1',
    );
  });

  it('refuses settings that are each in range but do not hold together', () => {
    expect(exitOf(['--yield-ms', '20min', '--max-yield-ms', '5min', '--', 'x']).stderr).toContain(
      'SETTING_INVALID: yieldMs (--yield-ms, 20 min) must not be past maxYieldMs (--max-yield-ms, 5 min)',
    );
    const file = writeConfig({ ...SERVERS, settings: { pool: 4, maxScriptChildren: 2 } });
    expect(exitOf(['--config', file]).stderr).toContain(
      'SETTING_INVALID: pool (--pool, 4) must not be past maxScriptChildren (--max-script-children, 2)',
    );
  });

  it('refuses a value it cannot read, saying what the flag takes', () => {
    expect(exitOf(['--yield-ms', 'soon', '--', 'x']).stderr).toBe(
      'codemode-mcp: SETTING_INVALID: yieldMs (--yield-ms) takes a whole number of milliseconds, or a number with ms, s or min (as in 5s); got "soon"\n' +
        'Run "codemode-mcp --help" for usage.\n',
    );
  });

  it('checks flags before reading the config file', () => {
    expect(exitOf(['--config', join(dir, 'absent.json'), '--pool', '99']).exit).toBe(EXIT_USAGE);
  });
});

describe('parseCli leaves the process alone', () => {
  it('does not exit or write, whatever it is given', () => {
    /* eslint-disable @typescript-eslint/unbound-method -- kept to be put back as they were, never called */
    const exit = process.exit;
    const write = process.stdout.write;
    const writeErr = process.stderr.write;
    /* eslint-enable @typescript-eslint/unbound-method */
    const calls: string[] = [];
    process.exit = ((code?: number) => calls.push(`exit ${code}`)) as typeof process.exit;
    process.stdout.write = (chunk: unknown) => calls.push(`stdout ${String(chunk)}`) > 0;
    process.stderr.write = (chunk: unknown) => calls.push(`stderr ${String(chunk)}`) > 0;
    try {
      for (const argv of [['--help'], ['--version'], ['--nope'], [], ['tools', '--help'], ['help']]) parseCli(argv);
    } finally {
      process.exit = exit;
      process.stdout.write = write;
      process.stderr.write = writeErr;
    }
    expect(calls).toEqual([]);
  });

  it('keeps a subdirectory as the base of a relative cwd in the config', () => {
    mkdirSync(join(dir, 'conf'));
    const file = writeConfig({ mcpServers: { a: { command: 'x', cwd: 'work' } } }, join('conf', 'servers.json'));
    expect(invocation(['--config', file]).upstreams[0]).toMatchObject({ cwd: join(dir, 'conf', 'work') });
  });
});

describe('login and logout', () => {
  const REMOTE = { mcpServers: { fs: SERVERS.mcpServers.fs, api: { type: 'http', url: 'https://api.example.com/mcp' } } };

  it('name one remote server of the config, with the settings the file gives', () => {
    const file = writeConfig({ ...REMOTE, settings: { upstreamStartTimeoutMs: '5s' } });
    expect(invocation(['login', 'api', '--config', file])).toMatchObject({
      command: 'login',
      server: 'api',
      openBrowser: true,
      configPath: file,
      upstreams: [{ name: 'api', transport: 'http', configFile: file }],
      settings: { upstreamStartTimeoutMs: 5_000 },
    });
    expect(invocation(['login', 'api', '--config', file, '--no-browser'])).toMatchObject({ openBrowser: false });
    expect(invocation(['logout', 'api', '--config', file])).toMatchObject({ command: 'logout', server: 'api' });
  });

  it('need --config and a server of it that is remote, and say so', () => {
    const file = writeConfig(REMOTE);
    expect(exitOf(['login', 'api'])).toMatchObject({
      exit: EXIT_USAGE,
      stderr: expect.stringContaining('login needs the config file that names the server'),
    });
    expect(exitOf(['logout', 'nope', '--config', file])).toMatchObject({
      exit: EXIT_CONFIG,
      stderr: expect.stringContaining('has no enabled server named "nope" (its http and sse servers: api)'),
    });
    expect(exitOf(['login', 'fs', '--config', file])).toMatchObject({
      exit: EXIT_CONFIG,
      stderr: expect.stringContaining('"fs" is started over stdio'),
    });
    expect(exitOf(['login', 'api', '--config', file, '--', 'node', 'x.js'])).toMatchObject({ exit: EXIT_USAGE });
  });
});

describe('the HTTP flags', () => {
  const TOKEN = 'sixteen-chars-or-more';
  const http = (argv: string[], env: Record<string, string> = {}) => invocation([...argv, '--', 'srv'], env).http;

  it('reads --http [host:]port, the host defaulting to 127.0.0.1, and the token from the environment', () => {
    expect(http(['--http', '8101'])).toEqual({
      host: '127.0.0.1',
      port: 8101,
      token: undefined,
      allowedHosts: [],
      instanceId: undefined,
      publicHealth: false,
    });
    expect(http(['--http', '[::1]:0', '--instance-id', 'a'])).toMatchObject({ host: '::1', port: 0, instanceId: 'a' });
    expect(http(['--http', '0.0.0.0:8101'], { CODEMODE_HTTP_TOKEN: TOKEN })).toMatchObject({ host: '0.0.0.0', token: TOKEN });
    expect(http(['--http', '8101', '--http-allowed-hosts', 'mcp.example.com, 10.0.0.5', '--http-token', TOKEN])).toMatchObject({
      allowedHosts: ['mcp.example.com', '10.0.0.5'],
    });
    expect(invocation(['--', 'srv']).http).toBeUndefined();
  });

  it('refuses to listen where others can reach it without a token, saying how to set one', () => {
    for (const argv of [
      ['--http', '0.0.0.0:8101'],
      ['--http', '8101', '--http-allowed-hosts', 'mcp.example.com'],
    ]) {
      const exit = exitOf([...argv, '--', 'srv']);
      expect(exit.exit).toBe(EXIT_USAGE);
      expect(exit.stderr).toContain('and has no token');
      expect(exit.stderr).toContain('--http-token <token> or the CODEMODE_HTTP_TOKEN environment variable');
    }
  });

  it('refuses a bad address, a short token, a bad instance id, and HTTP flags without --http', () => {
    expect(exitOf(['--http', 'localhost', '--', 'srv']).stderr).toContain('--http takes [host:]port');
    expect(exitOf(['--http', '8101', '--http-token', 'short', '--', 'srv']).stderr).toContain(
      'the HTTP token must be at least 16 characters',
    );
    expect(exitOf(['--http', '8101', '--instance-id', 'a.b', '--', 'srv']).stderr).toContain(
      '--instance-id takes 1 to 32 letters',
    );
    expect(exitOf(['--instance-id', 'a', '--', 'srv']).stderr).toContain('--instance-id applies only with --http');
  });
});
