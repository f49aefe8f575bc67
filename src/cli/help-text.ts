/** The words of --help and of usage errors, kept apart from the parsing. */

export const PROGRAM_NAME = 'codemode-mcp';

export const DESCRIPTION =
  'An MCP server offering one tool, code_execution: the model writes a JavaScript script that calls\n' +
  'the tools of your MCP servers, and gets back only what the script returns.';

/** The two ways to name the upstream servers; shown in --help and whenever neither or both are given. */
export const FORMS = [`${PROGRAM_NAME} --config <file> [options]`, `${PROGRAM_NAME} [options] -- <command> [args...]`];

/** The `tools` subcommand in one line, for the program's own usage. */
export const TOOLS_FORM_BRIEF = `${PROGRAM_NAME} tools (--config <file> | -- <command> [args...])`;

export const TOOLS_DESCRIPTION = 'print the tools a script can call, then exit';

export const TOOLS_FORMS = [
  `${PROGRAM_NAME} tools --config <file> [options]`,
  `${PROGRAM_NAME} tools [options] -- <command> [args...]`,
];

/** The `login` and `logout` subcommands in one line each, for the program's own usage. */
export const LOGIN_FORM = `${PROGRAM_NAME} login <server> --config <file> [--no-browser]`;
export const LOGOUT_FORM = `${PROGRAM_NAME} logout <server> --config <file>`;

export const LOGIN_DESCRIPTION =
  'sign in to a remote (http/sse) server of the config in the browser, and keep the tokens for the server to use';
export const LOGOUT_DESCRIPTION = "forget a remote server's sign-in: its tokens and client registration";
/** The `run` subcommand in one line, for the program's own usage. */
export const RUN_FORM_BRIEF = `${PROGRAM_NAME} run <file|-> [--json] (--config <file> | -- <command> [args...])`;

export const RUN_DESCRIPTION =
  'run one script (a file, or - for stdin) against the upstreams once, print its answer, then exit:\n' +
  '0 when it finished, 1 when it failed, crashed or was stopped, 2 when it was refused';

export const RUN_FORMS = [
  `${PROGRAM_NAME} run <file|-> [--json] --config <file> [options]`,
  `${PROGRAM_NAME} run <file|-> [--json] [options] -- <command> [args...]`,
];

/** The `check` subcommand in one line, for the program's own usage. */
export const CHECK_FORM_BRIEF = `${PROGRAM_NAME} check <file|-> (--config <file> | -- <command> [args...])`;

export const CHECK_DESCRIPTION =
  "type-check one script (a file, or - for stdin; a skill's skill.ts beside its SKILL.md as that skill) against the\n" +
  "upstreams' tools without running it, print what the check finds: exit 0 when it finds nothing, 1 when it does,\n" +
  '2 when it cannot check (the script unreadable, the compiler not starting, the check past --type-check-timeout-ms)';

export const CHECK_FORMS = [
  `${PROGRAM_NAME} check <file|-> --config <file> [options]`,
  `${PROGRAM_NAME} check <file|-> [options] -- <command> [args...]`,
];

/** The `skills` subcommands, for the program's own usage and `skills --help`. */
export const SKILLS_FORM_BRIEF = `${PROGRAM_NAME} skills (list | show <name> | rm <name>) [--skills-dir <dir>]`;

export const SKILLS_DESCRIPTION = 'list, show or remove the saved skills (a folder each under the skills directory)';

export const SKILLS_FORMS = [
  `${PROGRAM_NAME} skills list [--json] [--skills-dir <dir> | --config <file>]`,
  `${PROGRAM_NAME} skills show <name> [--skills-dir <dir> | --config <file>]`,
  `${PROGRAM_NAME} skills rm <name> [--skills-dir <dir> | --config <file>]`,
];

export const SKILLS_LIST_DESCRIPTION =
  'print each skill with its description (with --json, its digest too), then each folder that is not a usable skill and why: exit 1 when there is one';
export const SKILLS_SHOW_DESCRIPTION = "print a skill: its files, description, input schema, SKILL.md's body and its code";
export const SKILLS_RM_DESCRIPTION = "delete a skill's folder";

export const UNITS_NOTE =
  'Sizes take KiB, MiB or GiB (64MiB), durations ms, s or min (5s); a plain number is bytes or ms.\n' +
  'A flag overrides the same setting in the config file\'s "settings" object.';

export const EXAMPLES = [
  ['codemode-mcp --config ~/.config/codemode/servers.json', 'the servers of a Claude Desktop-style file'],
  ['codemode-mcp -- npx -y @modelcontextprotocol/server-filesystem /tmp', 'one server, started as given'],
  ['codemode-mcp --memory-max-bytes 256MiB --yield-ms 10s --config servers.json', 'with settings'],
  ['codemode-mcp tools --config .mcp.json', 'list what a script can call'],
  ['codemode-mcp login github --config servers.json', 'sign in to the remote server "github" ahead of time'],
  ['codemode-mcp run check.ts --config .mcp.json', 'run one script by hand, print its answer'],
  ['codemode-mcp check check.ts --config .mcp.json', "type-check a script against the tools' types, without running it"],
  ['codemode-mcp skills list', 'list the saved skills'],
] as const;

export function formatExamples(): string {
  return ['Examples:', ...EXAMPLES.flatMap(([command, what]) => [`  # ${what}`, `  ${command}`])].join('\n');
}

/** The message when --config and -- are both given, or neither: it shows the two forms. */
export function formsMessage(problem: string, forms: readonly string[] = FORMS): string {
  return [problem, ...forms.map((form) => `  ${form}`)].join('\n');
}
