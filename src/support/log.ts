/**
 * The server's log: every line it writes about itself, and the stderr of the processes it starts,
 * goes through here, at a level (`--log-level`, settings.logLevel), to stderr and, with
 * `--log-file`, appended to a file too. Stdout is never written: it may be the protocol.
 * Code writes its own lines through a Logger, which starts each with `codemode-mcp: ` (and its
 * scope); a Log is where the lines go, passed down as options so a test can read them.
 */
import { closeSync, writeSync } from 'node:fs';
import { openLogFile } from './log-file.js';
import { revealControls } from './echo.js';

export { LogFileError } from './log-file.js';

/** How much the server logs, least to most: each level prints its own lines and those of the levels before it. */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** How the process logs: a level, and a file or none. A path here is absolute. */
export interface LogSettings {
  readonly logLevel: LogLevel;
  readonly logFile: string | null;
}

/**
 * Where log lines go: a whole line, at `level` (info when not given). The process's stderr and file
 * (processLog), or a test's list. The server's own lines reach it through a Logger; a line written
 * to it directly is written as it is (an upstream's stderr, `[github] …`).
 */
export type Log = (line: string, level?: LogLevel) => void;

/** What every line the server writes about itself starts with. */
const PREFIX = 'codemode-mcp: ';

/**
 * `codemode-mcp: text`: a line of ours printed where there is no log to write it to (what the
 * command line answers before anything runs). Everything else writes through a Logger.
 */
export function prefixLine(text: string): string {
  return `${PREFIX}${text}`;
}

/**
 * Writes the server's own lines to a Log, each at the level its method names, starting
 * `codemode-mcp: ` and the scopes of the children it was made from: `log.child('approval').info(x)`
 * writes `codemode-mcp: approval: x`. The only place the prefix is written (lint checks).
 */
export class Logger {
  private constructor(
    /** Where the lines go. */
    readonly sink: Log,
    private readonly head: string,
  ) {}

  /** A logger over `sink` (the process's log when not given), its lines starting `codemode-mcp: `. */
  static of(sink: Log = processLog): Logger {
    return new Logger(sink, prefixLine(''));
  }

  /** A logger whose lines add `scope: ` after this one's: `upstream "github"`, `approval page`. */
  child(scope: string): Logger {
    return new Logger(this.sink, `${this.head}${scope}: `);
  }

  /** The line at a level chosen as it runs (`warn` the first time, `debug` after). */
  at(level: LogLevel, text: string): void {
    this.sink(`${this.head}${text}`, level);
  }

  error(text: string): void {
    this.at('error', text);
  }

  warn(text: string): void {
    this.at('warn', text);
  }

  info(text: string): void {
    this.at('info', text);
  }

  debug(text: string): void {
    this.at('debug', text);
  }
}

interface Sink {
  readonly level: LogLevel;
  /** The log file's descriptor, or null. */
  readonly fd: number | null;
  readonly path: string | null;
}

let sink: Sink = { level: 'info', fd: null, path: null };

/**
 * The process's log, as configured by `configureProcessLog` (info, stderr only, until then). What
 * code logs to when it was given no log of its own. A line often quotes what an upstream, a
 * script or a client wrote (and an upstream's stderr passes through here): its acting characters
 * (ESC, bidi controls, line separators) are written as escapes, so none reaches a terminal or a
 * reader of the file as what it would do.
 */
export const processLog: Log = (line, level = 'info') => {
  if (!shows(sink.level, level)) return;
  const shown = revealControls(line, 'lines');
  process.stderr.write(`${shown}\n`);
  // Synchronous, so the line is in the file before an exit that follows it.
  if (sink.fd !== null) writeToFile(sink.fd, `${new Date().toISOString()} ${level} ${shown}\n`);
};

/**
 * A log file that fails a write (a full disk, EIO, a file size limit) is given up: said once on
 * stderr, closed, and the log goes on to stderr alone. A log line never ends the server.
 */
function writeToFile(fd: number, text: string): void {
  try {
    writeSync(fd, text);
  } catch (error) {
    const { path } = sink;
    sink = { ...sink, fd: null, path: null };
    let closing = '';
    try {
      closeSync(fd);
    } catch (closeError) {
      closing = `; closing it failed too (${(closeError as Error).message})`;
    }
    const said =
      `LOG_FILE_FAILED: writing to the log file ${path} failed (${(error as Error).message})${closing}; ` +
      'logging to stderr only from now on; free space or fix the file, and restart to log there again';
    process.stderr.write(`${prefixLine(said)}\n`);
  }
}

/** Whether a log at `threshold` prints a line at `level`. */
export function shows(threshold: LogLevel, level: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) <= LOG_LEVELS.indexOf(threshold);
}

/**
 * Sets the process's level and opens its log file for appending (log-file.ts). Throws LogFileError,
 * naming `fileSource` as where the file was given (`--log-file, settings.logFile`).
 */
export function configureProcessLog(settings: LogSettings, fileSource: string): void {
  const fd = settings.logFile === null ? null : openLogFile(settings.logFile, fileSource);
  if (sink.fd !== null) closeSync(sink.fd);
  sink = { level: settings.logLevel, fd, path: settings.logFile };
}

/**
 * A `.catch` for a promise whose failure no caller waits on and nothing can be done about:
 * closing what is already closing, a notification to a client that is gone, cancelling a body
 * already ended. The failure goes to the debug log, saying what was being done, not nowhere.
 */
export function logFailure(doing: string, log: Log = processLog): (error: unknown) => void {
  return (error) => Logger.of(log).debug(`${doing} failed: ${error instanceof Error ? error.message : String(error)}`);
}
