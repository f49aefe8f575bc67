import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { CommanderError } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { loadConfigFile } from '../config/load-config-file.js';
import { mergeSettings } from '../config/merge-settings.js';
import { readSettingValue } from '../config/setting-value.js';
import type { UpstreamSpec, VariableSource } from '../config/types.js';
import { upstreamFromCommand } from '../config/upstream-from-command.js';
import { checkSettingsTogether, type SettingName, type Settings } from '../settings.js';
import type { HttpOptions } from '../server/http-options.js';
import { readHttpFlags } from './http-flags.js';
import { FORMS, PROGRAM_NAME, TOOLS_FORMS, formsMessage } from './help-text.js';
import { readPackageVersion } from './package-version.js';
import { buildProgram, type CapturedOutput, type RawArgs } from './program.js';

/** Run the server (`serve`), or print what a script can call (`tools`). */
export interface CliInvocation {
  command: 'serve' | 'tools';
  upstreams: UpstreamSpec[];
  /** Defaults, then the config file's `settings`, then flags. */
  settings: Settings;
  configPath: string | null;
  /** Present with --http: serve Streamable HTTP instead of stdio. */
  http?: HttpOptions;
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
  return invocationFrom(raw, upstreamArgv, context);
}

function invocationFrom(raw: RawArgs, upstreamArgv: string[] | null, context: CliContext): CliInvocation | CliExit {
  const forms = raw.command === 'tools' ? TOOLS_FORMS : FORMS;
  const usageError = (message: string): CliExit => usageExit(message, raw.command);
  const [stray] = raw.stray;
  if (stray !== undefined) {
    return usageError(formsMessage(`unexpected argument "${stray}"; an upstream command goes after "--":`, forms));
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

  const http = readHttpFlags(raw.http, context.env ?? process.env);
  if (http !== undefined && 'error' in http) return usageError(http.error);
  const httpPart = http === undefined ? {} : { http };

  const flags: Partial<Record<SettingName, number>> = {};
  for (const [name, text] of Object.entries(raw.settings) as [SettingName, string][]) {
    const read = readSettingValue(name, text);
    if ('error' in read) return usageError(read.error);
    flags[name] = read.value;
  }

  if (configArg === undefined) {
    // The `--` form: checked above to hold a command.
    const [command = '', ...args] = upstreamArgv ?? [];
    const upstreams = [upstreamFromCommand(command, args)];
    const settings = mergeSettings({}, flags);
    const clash = checkSettingsTogether(settings);
    if (clash !== null) return usageError(clash);
    return { command: raw.command, upstreams, settings, configPath: null, ...httpPart };
  }
  try {
    const config = loadConfigFile(resolveConfigPath(configArg, context), context.env ?? process.env);
    const settings = mergeSettings(config.settings, flags);
    const clash = checkSettingsTogether(settings);
    if (clash !== null) return usageError(clash);
    return { command: raw.command, upstreams: config.upstreams, settings, configPath: config.path, ...httpPart };
  } catch (error) {
    if (error instanceof ConfigError) return { exit: EXIT_CONFIG, stderr: `${error.message}\n` };
    throw error;
  }
}

/** `~` and `~/...` as a shell would expand them, since clients start us without a shell. */
function resolveConfigPath(path: string, context: CliContext): string {
  const home = context.homedir ?? homedir();
  const expanded = path === '~' ? home : path.startsWith('~/') ? `${home}${path.slice(1)}` : path;
  return resolve(context.cwd ?? process.cwd(), expanded);
}

function usageExit(message: string, command: CliInvocation['command']): CliExit {
  const help = command === 'tools' ? `${PROGRAM_NAME} tools --help` : `${PROGRAM_NAME} --help`;
  return { exit: EXIT_USAGE, stderr: `${PROGRAM_NAME}: ${message}\nRun "${help}" for usage.\n` };
}
