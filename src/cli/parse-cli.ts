import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { CommanderError } from 'commander';
import { closestName } from '../../common/closest-names.js';
import { ConfigError } from '../config/config-error.js';
import { runsCodemodeMcp, skipOwnEntries } from '../config/own-entries.js';
import { loadConfigFile } from '../config/load-config-file.js';
import { mergeSettings } from '../config/merge-settings.js';
import { readFlagSettings } from '../config/flag-settings.js';
import { describeFlagIssue } from '../config/read-settings.js';
import { checkSettingsTogether } from '../config/settings-together.js';
import type { UpstreamSpec, VariableSource } from '../config/types.js';
import { upstreamFromCommand } from '../config/upstream-from-command.js';
import type { Settings } from '../config/settings.js';
import { prefixLine, type LogSettings } from '../support/log.js';
import type { ReadPlace } from '../config/setting-spec.js';
import { resolveUserPath } from '../config/user-path.js';
import type { HttpOptions } from '../config/http-options.js';
import { readHttpFlags } from './http-flags.js';
import { checkHttpReach } from '../config/http-options.js';
import { CHECK_FORMS, FORMS, PROGRAM_NAME, RUN_FORMS, SKILLS_FORMS, TOOLS_FORMS, formsMessage } from './help-text.js';
import { readPackageVersion } from './package-version.js';
import { buildProgram, type CapturedOutput, type RawArgs } from './program.js';

/**
 * Run the server (`serve`), print what a script can call (`tools`), run one script (`run`), sign
 * in to or out of one remote server (`login`, `logout`), or list, show or remove skills (`skills`).
 */
export interface CliInvocation {
  command: 'serve' | 'tools' | 'run' | 'check' | 'login' | 'logout' | 'skills';
  upstreams: UpstreamSpec[];
  /** Defaults, then the config file's `settings`, then flags. */
  settings: Settings;
  /** The log's level and file, likewise: defaults (info; warn for tools and run), the config file, flags. */
  logging: LogSettings;
  configPath: string | null;
  /** login, logout: the remote server's name in the config. */
  server?: string;
  /** login: open the system browser on the sign-in link (it is printed either way). */
  openBrowser?: boolean;
  /** For `run` and `check`: the script's file ('-' for stdin), resolved against the working directory, and whether to print JSON. */
  script?: { path: string; json: boolean };
  /** Present with --http: serve Streamable HTTP instead of stdio. */
  http?: HttpOptions;
  /** skills: which subcommand, the skill named (show, rm), and whether to print JSON (list). */
  skills?: { action: 'list' | 'show' | 'rm'; name?: string; json: boolean };
  /** A line for each config entry left out because it runs codemode-mcp itself (config/own-entries.ts), logged at start. */
  skippedUpstreams?: readonly string[];
}

/** Exit now with this code, after writing these (each already ending in a newline). */
export interface CliExit {
  exit: number;
  stdout?: string;
  stderr?: string;
}

/** A command line that can't be understood: a bad flag or value, both forms or neither. */
export const EXIT_USAGE = 2;
/** A config file that can't be used: missing, not JSON, or not a valid config. */
export const EXIT_CONFIG = 1;

export interface CliContext {
  /** For `${VAR}` in the config file. Default: `process.env`. */
  env?: VariableSource;
  /** A relative --config is taken from here. Default: `process.cwd()`. */
  cwd?: string;
  /** What a leading `~` in --config stands for. Default: `os.homedir()`. */
  homedir?: string;
  /** Our own executable, to know an upstream entry that runs it. Default: `process.argv[1]`. */
  ownBin?: string;
}

export function isCliExit(result: CliInvocation | CliExit): result is CliExit {
  return 'exit' in result;
}

/**
 * Reads the command line (the user's arguments: `process.argv.slice(2)`) and loads the config file
 * it names. Never exits or writes: help, the version and every error come back as a `CliExit`.
 * Everything after the first `--` is the upstream command, untouched.
 */
export function parseCli(argv: readonly string[], context: CliContext = {}): CliInvocation | CliExit {
  const dash = argv.indexOf('--');
  const ours = dash === -1 ? [...argv] : argv.slice(0, dash);
  const upstreamArgv = dash === -1 ? null : argv.slice(dash + 1);

  const output: CapturedOutput = { stdout: '', stderr: '' };
  let raw: RawArgs | undefined;
  const program = buildProgram(readPackageVersion(), output, (parsed) => {
    raw = parsed;
  });
  try {
    program.parse(ours, { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.exitCode === 0) return { exit: 0, stdout: output.stdout };
    return usageExit(output.stderr.replace(/^error: /, '').trimEnd(), 'serve');
  }
  if (raw === undefined) throw new Error('commander parsed the command line without running an action');
  const parsed: RawArgs = raw;
  if (parsed.command === 'login' || parsed.command === 'logout') return authInvocationFrom(parsed, upstreamArgv, context);
  if (parsed.command === 'skills') return skillsInvocationFrom(parsed, upstreamArgv, context);
  // Commander's own `help` command is not among program.commands.
  const commands = [...program.commands.map((command) => command.name()), 'help'];
  return invocationFrom({ ...parsed, command: parsed.command }, upstreamArgv, context, commands);
}

/** `login <server> --config <file>` and `logout ...`: the server must be a remote one of that file. */
function authInvocationFrom(raw: RawArgs, upstreamArgv: string[] | null, context: CliContext): CliInvocation | CliExit {
  const usageError = (message: string): CliExit => usageExit(message, raw.command);
  const form = `${PROGRAM_NAME} ${raw.command} <server> --config <file>`;
  if (upstreamArgv !== null)
    return usageError(`${raw.command} signs in to a server of a config file, not to a command after "--": ${form}`);
  if (raw.config === undefined) return usageError(`${raw.command} needs the config file that names the server: ${form}`);
  try {
    const config = loadConfigFile(resolveConfigPath(raw.config, context), context.env ?? process.env);
    const spec = config.upstreams.find((upstream) => upstream.name === raw.server);
    const remote = config.upstreams.filter((upstream) => upstream.transport !== 'stdio').map((upstream) => upstream.name);
    const known = remote.length === 0 ? 'it has no http or sse server' : `its http and sse servers: ${remote.join(', ')}`;
    if (spec === undefined)
      return {
        exit: EXIT_CONFIG,
        stderr: `${prefixLine(`${config.path} has no enabled server named "${raw.server}" (${known})`)}\n`,
      };
    if (spec.transport === 'stdio') {
      return {
        exit: EXIT_CONFIG,
        stderr: `${prefixLine(`"${spec.name}" is started over stdio, and signs in (if at all) with what its env gives it; ${raw.command} is for http and sse servers (${known})`)}\n`,
      };
    }
    return {
      command: raw.command,
      upstreams: [spec],
      settings: mergeSettings(config.settings, {}),
      logging: mergeLogSettings(raw.command, config.logging, {}),
      configPath: config.path,
      server: spec.name,
      ...(raw.openBrowser !== undefined ? { openBrowser: raw.openBrowser } : {}),
    };
  } catch (error) {
    if (error instanceof ConfigError) return configExit(error);
    throw error;
  }
}

/** `skills list|show|rm`: the skills directory from --skills-dir, else the config file's skillsDir, else the default. */
function skillsInvocationFrom(raw: RawArgs, upstreamArgv: string[] | null, context: CliContext): CliInvocation | CliExit {
  const { action, name } = raw.skills ?? { action: 'list' };
  if (upstreamArgv !== null) return usageExit(`skills reads the skills directory; it takes no command after "--"`, 'skills');
  const [stray] = raw.stray;
  if (stray !== undefined) {
    const meant = closestName(stray, ['list', 'show', 'rm']);
    const hint = meant === null ? '' : ` (did you mean "${PROGRAM_NAME} skills ${meant}"?)`;
    return usageExit(formsMessage(`unknown skills command "${stray}"${hint}; the skills commands:`, SKILLS_FORMS), 'skills');
  }
  const fromFlags = readFlagSettings(raw.settings, placeOf(context));
  if ('issue' in fromFlags) return usageExit(describeFlagIssue(fromFlags.issue), 'skills');
  let fromFile: CliInvocation['settings'] | undefined;
  let configPath: string | null = null;
  if (raw.config !== undefined) {
    try {
      const config = loadConfigFile(resolveConfigPath(raw.config, context), context.env ?? process.env);
      fromFile = mergeSettings(config.settings, {});
      configPath = config.path;
    } catch (error) {
      if (error instanceof ConfigError) return configExit(error);
      throw error;
    }
  }
  return {
    command: 'skills',
    upstreams: [],
    settings: mergeSettings(fromFile ?? {}, fromFlags.layer.settings),
    logging: mergeLogSettings('skills', {}, {}),
    configPath,
    skills: { action, ...(name !== undefined ? { name } : {}), json: raw.json === true },
  };
}

function invocationFrom(
  raw: RawArgs & { command: 'serve' | 'tools' | 'run' | 'check' },
  upstreamArgv: string[] | null,
  context: CliContext,
  commands: readonly string[],
): CliInvocation | CliExit {
  const forms = { tools: TOOLS_FORMS, run: RUN_FORMS, check: CHECK_FORMS, serve: FORMS }[raw.command];
  const usageError = (message: string): CliExit => usageExit(message, raw.command);
  const takesScript = raw.command === 'run' || raw.command === 'check';
  const operands = takesScript ? raw.stray.slice(1) : raw.stray;
  if (takesScript && raw.stray[0] === undefined) {
    return usageError(
      formsMessage(`${raw.command} needs the script to ${raw.command}: a file, or - to read it from stdin:`, forms),
    );
  }
  const script = takesScript ? { path: scriptPath(raw.stray[0]!, context), json: raw.json === true } : undefined;
  const [stray] = operands;
  if (stray !== undefined) {
    // `codemode-mcp tool`: a mistyped command reaches us as the server's stray operand.
    const meant = raw.command === 'serve' ? closestName(stray, commands) : null;
    const hint = meant === null ? '' : ` did you mean the command "${PROGRAM_NAME} ${meant}"? Otherwise`;
    return usageError(formsMessage(`unexpected argument "${stray}";${hint} an upstream command goes after "--":`, forms));
  }
  if (upstreamArgv !== null && upstreamArgv.length === 0) {
    return usageError(formsMessage('"--" must be followed by the command that starts the upstream server:', forms));
  }
  const configArg = raw.config;
  if (upstreamArgv !== null && configArg !== undefined) {
    return usageError(formsMessage('give the MCP servers with --config or after "--", not both:', forms));
  }
  if (upstreamArgv === null && configArg === undefined) {
    return usageError(formsMessage('name the MCP servers to front, in one of two ways:', forms));
  }

  const http = raw.http === undefined ? undefined : readHttpFlags(raw.http, context.env ?? process.env);
  if (http !== undefined && 'error' in http) return usageError(http.error);
  const httpPart = http === undefined ? {} : { http };

  const fromFlags = readFlagSettings(raw.settings, placeOf(context));
  if ('issue' in fromFlags) return usageError(describeFlagIssue(fromFlags.issue));
  const { settings: flags, logging: logFlags } = fromFlags.layer;

  if (configArg === undefined) {
    // The `--` form: checked above to hold a command.
    const [command = '', ...args] = upstreamArgv ?? [];
    if (runsCodemodeMcp(command, args, context.ownBin ?? process.argv[1])) {
      return usageError(
        'the command after "--" runs codemode-mcp itself, which would start itself again without end; give the command that starts the MCP server to front',
      );
    }
    const upstreams = [upstreamFromCommand(command, args)];
    const settings = mergeSettings({}, flags);
    const clash = settingsClash(http, settings);
    if (clash !== null) return usageError(clash);
    return {
      command: raw.command,
      upstreams,
      settings,
      logging: mergeLogSettings(raw.command, {}, logFlags),
      configPath: null,
      ...(script ? { script } : {}),
      ...httpPart,
    };
  }
  try {
    const config = loadConfigFile(resolveConfigPath(configArg, context), context.env ?? process.env);
    const found = skipOwnEntries(config.upstreams, context.ownBin ?? process.argv[1]);
    const { kept } = found;
    const skipped = [...(config.ownEntries ?? []), ...found.skipped];
    if (kept.length === 0) {
      const why = 'every server in it runs codemode-mcp itself; list the MCP servers to front in a config without it';
      return {
        exit: EXIT_CONFIG,
        stderr: `${skipped.map(prefixLine).join('\n')}\n${configExit(new ConfigError(config.path, why)).stderr}`,
      };
    }
    const settings = mergeSettings(config.settings, flags);
    const clash = settingsClash(http, settings);
    if (clash !== null) return usageError(clash);
    return {
      command: raw.command,
      upstreams: kept,
      settings,
      logging: mergeLogSettings(raw.command, config.logging, logFlags),
      configPath: config.path,
      ...(script ? { script } : {}),
      ...httpPart,
      ...(skipped.length > 0 ? { skippedUpstreams: skipped } : {}),
    };
  } catch (error) {
    if (error instanceof ConfigError) return configExit(error);
    throw error;
  }
}

/** Settings that don't hold together (settings-together.ts), or, with --http, a listener others can reach with no token (http-options.ts); or null. */
function settingsClash(http: HttpOptions | undefined, settings: Settings): string | null {
  const issue = checkSettingsTogether(settings);
  if (issue !== null) return describeFlagIssue(issue);
  return http === undefined ? null : (checkHttpReach(http, settings.httpTokensFile) ?? null);
}

/** A config file that can't be used: its ConfigError, as every line the command writes, after the program's name. */
function configExit(error: ConfigError): CliExit {
  return { exit: EXIT_CONFIG, stderr: `${prefixLine(error.message)}\n` };
}

/** Where a flag's relative path is taken from, what `~` is, and where `${VAR}` is looked up. */
function placeOf(context: CliContext): ReadPlace {
  return { baseDir: context.cwd ?? process.cwd(), home: context.homedir ?? homedir(), env: context.env ?? process.env };
}

/** The default, then the file, then the flags. `tools`, `run` and `skills` log at warn by default: their output is what was asked for. */
function mergeLogSettings(
  command: CliInvocation['command'],
  fromFile: Partial<LogSettings>,
  fromFlags: Partial<LogSettings>,
): LogSettings {
  const quiet = command === 'tools' || command === 'run' || command === 'check' || command === 'skills';
  return { logLevel: quiet ? 'warn' : 'info', logFile: null, ...fromFile, ...fromFlags };
}

/** A script file resolved against the working directory; `-` stays stdin. */
function scriptPath(path: string, context: CliContext): string {
  return path === '-' ? '-' : resolve(context.cwd ?? process.cwd(), path);
}

/** `~` and `~/...` as a shell would expand them, since clients start us without a shell. */
function resolveConfigPath(path: string, context: CliContext): string {
  return resolveUserPath(path, context.cwd ?? process.cwd(), context.homedir ?? homedir());
}

function usageExit(message: string, command: CliInvocation['command']): CliExit {
  const help = command === 'serve' ? `${PROGRAM_NAME} --help` : `${PROGRAM_NAME} ${command} --help`;
  return { exit: EXIT_USAGE, stderr: `${prefixLine(message)}\nRun "${help}" for usage.\n` };
}
