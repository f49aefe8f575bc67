/**
 * The server's log: every line it writes about itself, and the stderr of the processes it starts,
 * goes through here, at a level (`--log-level`, settings.logLevel), to stderr and, with
 * `--log-file`, appended to a file too. Stdout is never written: it may be the protocol.
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

/** Logs a line at `level` (info when not given). */
export type Log = (line: string, level?: LogLevel) => void;

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
    process.stderr.write(
      `codemode-mcp: LOG_FILE_FAILED: writing to the log file ${path} failed (${(error as Error).message})${closing}; ` +
        `logging to stderr only from now on; free space or fix the file, and restart to log there again\n`,
    );
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
  return (error) => log(`codemode-mcp: ${doing} failed: ${error instanceof Error ? error.message : String(error)}`, 'debug');
}
