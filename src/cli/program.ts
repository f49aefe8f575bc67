import { Command, Option } from 'commander';
import { ALL_SETTINGS, LOCATION_SETTINGS, formatSettingValue, type SettingSpec } from '../config/settings.js';
import { isNumberSetting } from '../config/setting-spec.js';
import type { SettingFlags } from '../config/flag-settings.js';
import {
  CHECK_DESCRIPTION,
  CHECK_FORMS,
  CHECK_FORM_BRIEF,
  DESCRIPTION,
  FORMS,
  LOGIN_DESCRIPTION,
  LOGIN_FORM,
  LOGOUT_DESCRIPTION,
  LOGOUT_FORM,
  PROGRAM_NAME,
  RUN_DESCRIPTION,
  RUN_FORMS,
  RUN_FORM_BRIEF,
  SKILLS_DESCRIPTION,
  SKILLS_FORMS,
  SKILLS_FORM_BRIEF,
  SKILLS_LIST_DESCRIPTION,
  SKILLS_RM_DESCRIPTION,
  SKILLS_SHOW_DESCRIPTION,
  TOOLS_DESCRIPTION,
  TOOLS_FORMS,
  TOOLS_FORM_BRIEF,
  UNITS_NOTE,
  formatExamples,
} from './help-text.js';

/** What commander read, before any value is checked: that happens in parseCli, with our own messages. */
export interface RawArgs {
  command: 'serve' | 'tools' | 'run' | 'check' | 'login' | 'logout' | 'skills';
  config: string | undefined;
  /** Setting flags as typed, by setting name: each value in order (none for a switch given). */
  settings: SettingFlags;
  /** Operands that shouldn't be there: usually an upstream command missing its `--`. For `run` and `check`, the first is its script. */
  stray: string[];
  /** login, logout: the server named, and whether to open a browser. */
  server?: string;
  openBrowser?: boolean;
  /** `run --json`: print the whole answer as JSON; `skills list --json`: the listing. */
  json?: boolean;
  /** `skills list|show|rm`: which, and the skill named. */
  skills?: { action: 'list' | 'show' | 'rm'; name?: string };
  /** The HTTP mode's flags as typed (serve only). */
  http?: RawHttpArgs;
}

export interface RawHttpArgs {
  listen: string | undefined;
  token: string | undefined;
  allowedHosts: string | undefined;
  instanceId: string | undefined;
  publicHealth: boolean | undefined;
}

export interface CapturedOutput {
  stdout: string;
  stderr: string;
}

/** Fixed, so help reads the same wherever it is printed and tests can compare it. */
const HELP_WIDTH = 100;

/**
 * The commander program: `codemode-mcp [options]` and `codemode-mcp tools [options]`, each taking
 * --config and a flag per setting. It never exits the process (exitOverride) and never writes to
 * it (configureOutput): help, version and errors land in `output`. Argv after `--` never reaches it.
 */
export function buildProgram(version: string, output: CapturedOutput, onParsed: (raw: RawArgs) => void): Command {
  const program = new Command(PROGRAM_NAME)
    .description(DESCRIPTION)
    .usage(usageOf([...FORMS, TOOLS_FORM_BRIEF, RUN_FORM_BRIEF, CHECK_FORM_BRIEF, LOGIN_FORM, LOGOUT_FORM, SKILLS_FORM_BRIEF]))
    .helpOption('-h, --help', 'print this help and exit')
    .helpCommand('help [command]', 'print the help of a command')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void (output.stdout += text),
      writeErr: (text) => void (output.stderr += text),
      getOutHelpWidth: () => HELP_WIDTH,
      getErrHelpWidth: () => HELP_WIDTH,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    // Options before `tools` belong to the program, after it to `tools`; both are read.
    .enablePositionalOptions();
  addServeOptions(program)
    .option('--http <[host:]port>', `serve MCP over Streamable HTTP at /mcp instead of stdio; host defaults to 127.0.0.1`)
    .option(
      '--http-token <token>',
      'with --http: require "Authorization: Bearer <token>" (or set CODEMODE_HTTP_TOKEN); needed to listen beyond loopback',
    )
    .option(
      '--http-allowed-hosts <names>',
      'with --http: hostnames, comma-separated, accepted in Host and Origin besides the loopback names',
    )
    .option(
      '--instance-id <id>',
      'with --http: prefix every session id and script id with <id>. so a load balancer can route them to this instance',
    )
    .option(
      '--http-public-health',
      'with --http: answer GET /healthz without the token (for load balancers and probes) with its status alone; the details still need the token',
    )
    .action(
      (opts: {
        config?: string;
        http?: string;
        httpToken?: string;
        httpAllowedHosts?: string;
        instanceId?: string;
        httpPublicHealth?: boolean;
      }) => {
        onParsed({
          command: 'serve',
          config: opts.config,
          settings: readSettingFlags(program),
          stray: program.args,
          http: {
            listen: opts.http,
            token: opts.httpToken,
            allowedHosts: opts.httpAllowedHosts,
            instanceId: opts.instanceId,
            publicHealth: opts.httpPublicHealth,
          },
        });
      },
    );
  program.version(version, '-V, --version', 'print the version and exit');

  const tools = program
    .command('tools')
    .description(TOOLS_DESCRIPTION)
    .usage(usageOf(TOOLS_FORMS).replace(/^tools /, ''));
  addServeOptions(tools).action((opts: { config?: string }) => {
    const parentConfig = program.opts<{ config?: string }>().config;
    const settings = mergeSettingFlags(readSettingFlags(program), readSettingFlags(tools));
    const none = { listen: undefined, token: undefined, allowedHosts: undefined, instanceId: undefined, publicHealth: undefined };
    onParsed({ command: 'tools', config: opts.config ?? parentConfig, settings, stray: tools.args, http: none });
  });

  const run = program.command('run').description(RUN_DESCRIPTION).usage(usageOf(RUN_FORMS).replace(/^run /, ''));
  run.option('--json', 'print the whole answer (content blocks and structuredContent) as JSON');
  addServeOptions(run, false).action((opts: { config?: string; json?: boolean }) => {
    const parentConfig = program.opts<{ config?: string }>().config;
    const settings = mergeSettingFlags(readSettingFlags(program), readSettingFlags(run));
    onParsed({
      command: 'run',
      config: opts.config ?? parentConfig,
      settings,
      stray: run.args,
      json: opts.json === true,
    });
  });

  const check = program
    .command('check')
    .description(CHECK_DESCRIPTION)
    .usage(usageOf(CHECK_FORMS).replace(/^check /, ''));
  addServeOptions(check, false).action((opts: { config?: string }) => {
    const parentConfig = program.opts<{ config?: string }>().config;
    const settings = mergeSettingFlags(readSettingFlags(program), readSettingFlags(check));
    onParsed({ command: 'check', config: opts.config ?? parentConfig, settings, stray: check.args });
  });

  addAuthCommands(program, onParsed);
  addSkillsCommands(program, onParsed);
  program.addHelpText('after', `\n${UNITS_NOTE}\n\n${formatExamples()}\n`);
  return program;
}

/** `login <server>` and `logout <server>`: each reads --config, and no setting flag. */
function addAuthCommands(program: Command, onParsed: (raw: RawArgs) => void): void {
  const configOption = '--config <file>';
  const configHelp = 'the config file that names the server';
  program
    .command('login')
    .description(LOGIN_DESCRIPTION)
    .usage(usageOf([LOGIN_FORM]).replace(/^login /, ''))
    .argument('<server>', "the server's name in the config")
    .option(configOption, configHelp)
    .option('--no-browser', 'print the sign-in link without opening a browser')
    .action((server: string, opts: { config?: string; browser: boolean }) => {
      onParsed({
        command: 'login',
        config: opts.config ?? program.opts<{ config?: string }>().config,
        settings: {},
        stray: [],
        server,
        openBrowser: opts.browser,
      });
    });
  program
    .command('logout')
    .description(LOGOUT_DESCRIPTION)
    .usage(usageOf([LOGOUT_FORM]).replace(/^logout /, ''))
    .argument('<server>', "the server's name in the config")
    .option(configOption, configHelp)
    .action((server: string, opts: { config?: string }) => {
      onParsed({
        command: 'logout',
        config: opts.config ?? program.opts<{ config?: string }>().config,
        settings: {},
        stray: [],
        server,
      });
    });
}

/** `skills list`, `skills show <name>`, `skills rm <name>`: each reads --skills-dir and --config (for its skillsDir). */
function addSkillsCommands(program: Command, onParsed: (raw: RawArgs) => void): void {
  const skills = program
    .command('skills')
    .description(SKILLS_DESCRIPTION)
    .usage(usageOf(SKILLS_FORMS).replace(/^skills /, ''));
  const spec = LOCATION_SETTINGS.skillsDir;
  const withOptions = (command: Command): Command =>
    command
      .option(`--${spec.flag} ${spec.placeholder}`, describeSetting(spec))
      .option('--config <file>', 'a config file whose settings.skillsDir says where the skills are');
  const parsed = (command: Command, action: 'list' | 'show' | 'rm', name?: string): RawArgs => {
    // `skills --skills-dir x list` puts the option on `skills`, `skills list --skills-dir x` on `list`.
    const opts = {
      ...skills.opts<{ config?: string; skillsDir?: string }>(),
      ...command.opts<{ config?: string; skillsDir?: string; json?: boolean }>(),
    };
    return {
      command: 'skills',
      config: opts.config ?? program.opts<{ config?: string }>().config,
      settings: opts.skillsDir === undefined ? {} : { skillsDir: [opts.skillsDir] },
      // `skills lst`: the parent's action gets what no subcommand took.
      stray: command === skills ? [...command.args] : [],
      ...(opts.json === true ? { json: true } : {}),
      skills: { action, ...(name !== undefined ? { name } : {}) },
    };
  };
  const list = withOptions(skills.command('list').description(SKILLS_LIST_DESCRIPTION)).option(
    '--json',
    'print the listing as JSON: directory, skills (name, description, digest), problems',
  );
  list.action(() => onParsed(parsed(list, 'list')));
  // `skills` alone lists, as `skills list` does.
  withOptions(skills)
    .allowExcessArguments()
    .action(() => onParsed(parsed(skills, 'list')));
  const show = withOptions(skills.command('show').description(SKILLS_SHOW_DESCRIPTION).argument('<name>', "the skill's name"));
  show.action((name: string) => onParsed(parsed(show, 'show', name)));
  const rm = withOptions(skills.command('rm').description(SKILLS_RM_DESCRIPTION).argument('<name>', "the skill's name"));
  rm.action((name: string) => onParsed(parsed(rm, 'rm', name)));
}

/** `passThrough`: options after the first operand are kept as operands (serve, tools); `run`'s first operand is its script, and options may follow it. */
function addServeOptions(command: Command, passThrough = true): Command {
  // Operands are kept (in `command.args`) rather than refused by commander, so parseCli can say
  // where an upstream command goes; passThroughOptions keeps that command's own flags among them.
  command.allowExcessArguments();
  if (passThrough) command.passThroughOptions();
  command.option('--config <file>', 'the MCP servers to front: a JSON file as Claude Desktop, Claude Code or VS Code writes it');
  for (const spec of ALL_SETTINGS) {
    const option = new Option(
      spec.placeholder === null ? `--${spec.flag}` : `--${spec.flag} ${spec.placeholder}`,
      describeSetting(spec),
    );
    if (spec.repeatable) option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
    command.addOption(option);
  }
  return command;
}

/** `<doc> (default 30 s; 0 ms to 60 min)`: a setting as --help shows it. */
function describeSetting(spec: SettingSpec): string {
  if (!isNumberSetting(spec)) return `${spec.doc} (default ${spec.defaultText})`;
  const format = (value: number): string => formatSettingValue(spec, value);
  return `${spec.doc} (default ${format(spec.default)}; ${format(spec.min)} to ${format(spec.max)})`;
}

/** The setting flags `command` was given, by setting name. */
function readSettingFlags(command: Command): SettingFlags {
  const flags: Record<string, readonly string[]> = {};
  for (const spec of ALL_SETTINGS) {
    const option = command.options.find((candidate) => candidate.long === `--${spec.flag}`);
    const value: unknown = option === undefined ? undefined : command.getOptionValue(option.attributeName());
    // A switch given is `true`: given, with no value.
    if (value === true) flags[spec.name] = [];
    if (typeof value === 'string') flags[spec.name] = [value];
    if (Array.isArray(value)) flags[spec.name] = value as string[];
  }
  return flags;
}

/** The program's flags, then a command's (`tools`, `run`): the command's value wins, and a repeatable flag's values add up. */
function mergeSettingFlags(program: SettingFlags, command: SettingFlags): SettingFlags {
  const merged: Record<string, readonly string[]> = { ...program };
  for (const [name, texts] of Object.entries(command)) {
    const before = program[name];
    merged[name] =
      before !== undefined && ALL_SETTINGS.some((spec) => spec.name === name && spec.repeatable) ? [...before, ...texts] : texts;
  }
  return merged;
}

/** Commander prints "Usage: codemode-mcp <usage>"; further forms line up under the first. */
function usageOf(forms: readonly string[]): string {
  const indent = ' '.repeat('Usage: '.length);
  return forms.map((form, i) => (i === 0 ? form.slice(PROGRAM_NAME.length + 1) : `${indent}${form}`)).join('\n');
}
