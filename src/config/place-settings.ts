/**
 * The settings that say where things go: the log, scripts' state, saved skills, the HTTP tokens
 * file and the audit log. Scripts' state is in memory by default (gone with the server), in a
 * directory, or in Redis/Valkey; `stateDir` and `stateUrl` exclude each other (settings-together.ts).
 */
import { LOG_LEVELS, type LogLevel } from '../support/log.js';
import { choiceSetting, pathSetting, redisUrlSetting } from './setting-kinds.js';

export const LOG_SETTINGS = {
  /** `tools`, `run` and `skills` default to warn, so only their output shows (src/cli/parse-cli.ts). */
  logLevel: choiceSetting<LogLevel>({
    name: 'logLevel',
    flag: 'log-level',
    layer: 'logging',
    choices: LOG_LEVELS,
    default: 'info',
    placeholder: '<level>',
    defaultText: 'info (warn for tools and run)',
    defaultMarkdown: 'info (warn for `tools` and `run`)',
    doc: "error, warn, info or debug: debug adds each upstream's start command and each tool call; error leaves only failures",
    details:
      "how much goes to stderr: `debug` adds each upstream's start command, each tool call with its time, and what failed that nothing waits on (a close, a notification to a client gone), `error` leaves only failures ([docs/observability.md](docs/observability.md#logs))",
  }),
  logFile: pathSetting({
    name: 'logFile',
    flag: 'log-file',
    layer: 'logging',
    target: 'file',
    what: 'to append the log to',
    placeholder: '<path>',
    defaultText: 'none',
    doc: 'append every log line, with its time and level, to this file as well as stderr; its directory must exist',
    details:
      "every log line is appended there too, with its time and level; a file that can't be opened (its directory missing, say), or isn't a regular file or a terminal (a FIFO, a socket, a device), stops the start with a message saying what to do; a write that fails later (a full disk) is said once on stderr, and the log goes on to stderr alone",
  }),
};

export const LOCATION_SETTINGS = {
  /** Made 0700 if missing, one 0600 file per key. */
  stateDir: pathSetting({
    name: 'stateDir',
    flag: 'state-dir',
    target: 'directory',
    what: 'to keep state in',
    placeholder: '<dir>',
    defaultText: 'none (in memory)',
    doc: "keep scripts' state (store/load) in files in this directory (0700, each file 0600), so it survives a restart; made if missing",
    details:
      "scripts' state is kept in files there (the directory 0700, each file 0600), so it survives a restart and servers sharing the directory share it; without `stateDir` or `stateUrl` it is kept in memory and gone when the server exits ([docs/config.md](docs/config.md#where-scripts-state-is-kept))",
  }),
  stateUrl: redisUrlSetting({
    name: 'stateUrl',
    flag: 'state-url',
    placeholder: '<url>',
    defaultText: 'none (in memory)',
    doc: "keep scripts' state (store/load) in the Redis or Valkey at this redis:// or rediss:// URL, shared by every instance that uses it",
    details:
      "scripts' state is kept in that Redis or Valkey, shared by every instance using it; while it can't be reached, each state operation fails at once saying so. Not with `stateDir`",
  }),
  /** By default the user's data directory's `codemode-mcp/skills` (src/skills/skills-directory.ts). */
  skillsDir: pathSetting({
    name: 'skillsDir',
    flag: 'skills-dir',
    target: 'directory',
    what: 'to keep skills in',
    placeholder: '<dir>',
    defaultText: '~/.local/share/codemode-mcp/skills on Linux, by platform: docs/config.md',
    doc: 'where skills are kept, a folder each (SKILL.md and skill.ts or skill.js); made on the first save',
    details:
      'where [skills](docs/skills.md) are kept, a folder each; read on every list, so edits by hand show at once ([docs/config.md](docs/config.md#skillsdir))',
  }),
  /** A JSON file `{"<principal>": "<token>", …}`, mode 0600 or it is refused (src/http/tokens-file.ts). */
  httpTokensFile: pathSetting({
    name: 'httpTokensFile',
    flag: 'http-tokens-file',
    target: 'file',
    what: 'of bearer tokens by principal',
    placeholder: '<file>',
    defaultText: 'none (one principal)',
    doc: 'with --http: a JSON file {"<principal>": "<token>", …} (mode 0600; read again on SIGHUP); each token names a principal, with scripts and state of its own',
    details:
      'with `--http`: a JSON file `{"<principal>": "<token>", …}`, mode 0600 (refused otherwise), read again on SIGHUP (which then no longer ends the server); each bearer token names a principal: its scripts (for 2026-07-28 clients), its sessions and its state are its own ([docs/deploy.md](docs/deploy.md#principals))',
  }),
  /** Created 0600, its directory must exist; reopened on SIGUSR2 so it can be rotated. */
  auditLog: pathSetting({
    name: 'auditLog',
    flag: 'audit-log',
    target: 'file',
    what: 'to append the audit log to',
    placeholder: '<file>',
    defaultText: 'none',
    doc: 'append one JSON line per tool call a script makes (time, principal, script, upstream, tool, outcome, duration) to this file, made 0600; reopened on SIGUSR2',
    details:
      "one JSON line per tool call a script makes is appended there (time, principal, session, script, upstream, tool, the arguments' size and SHA-256, outcome, duration); created 0600; reopened on SIGUSR2. A file that can't be opened stops the start with `LOG_FILE_INVALID` ([the audit log](docs/observability.md#the-audit-log))",
  }),
};
