/**
 * The server's log: every line it writes about itself, and the stderr of the processes it starts,
 * goes through here, at a level (`--log-level`, settings.logLevel), to stderr and, with
 * `--log-file`, appended to a file too. Stdout is never written: it may be the protocol.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { LOG_LEVELS, LOG_SETTINGS, type LogLevel, type LogSettings } from './settings.js';

/** Logs a line at `level` (info when not given). */
export type Log = (line: string, level?: LogLevel) => void;

interface Sink {
  readonly level: LogLevel;
  /** The log file's descriptor, or null. */
  readonly fd: number | null;
}

let sink: Sink = { level: 'info', fd: null };

/**
 * The process's log, as configured by `configureProcessLog` (info, stderr only, until then). What
 * code logs to when it was given no log of its own.
 */
export const processLog: Log = (line, level = 'info') => {
  if (!shows(sink.level, level)) return;
  process.stderr.write(`${line}\n`);
  // Synchronous, so the line is in the file before an exit that follows it.
  if (sink.fd !== null) writeSync(sink.fd, `${new Date().toISOString()} ${level} ${line}\n`);
};

/** Whether a log at `threshold` prints a line at `level`. */
export function shows(threshold: LogLevel, level: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) <= LOG_LEVELS.indexOf(threshold);
}

/** A log file that can't be opened for appending: the message says which and what to do. */
export class LogFileError extends Error {
  override readonly name = 'LogFileError';
  readonly code = 'LOG_FILE_INVALID';

  constructor(path: string, cause: NodeJS.ErrnoException) {
    const why =
      cause.code === 'ENOENT'
        ? `its directory ${dirname(path)} does not exist; create it, or give a path in a directory that does`
        : cause.code === 'EISDIR'
          ? 'it is a directory; give the path of a file in it'
          : cause.code === 'EACCES' || cause.code === 'EPERM'
            ? 'it may not be written here; give a path you can write to'
            : `${cause.message}; give a path to a file you can write to`;
    super(`LOG_FILE_INVALID: cannot append to the log file ${path} (--${LOG_SETTINGS.logFile.flag}, settings.logFile): ${why}`);
  }
}

/**
 * Sets the process's level and opens its log file for appending (created if missing; its directory
 * is not, so a mistyped directory is caught here rather than silently made). Throws LogFileError.
 */
export function configureProcessLog(settings: LogSettings): void {
  let fd: number | null = null;
  if (settings.logFile !== null) {
    try {
      fd = openSync(settings.logFile, 'a');
    } catch (error) {
      throw new LogFileError(settings.logFile, error as NodeJS.ErrnoException);
    }
  }
  if (sink.fd !== null) closeSync(sink.fd);
  sink = { level: settings.logLevel, fd };
}

/**
 * A `.catch` for a promise whose failure no caller waits on and nothing can be done about:
 * closing what is already closing, a notification to a client that is gone, cancelling a body
 * already ended. The failure goes to the debug log, saying what was being done, not nowhere.
 */
export function logFailure(doing: string, log: Log = processLog): (error: unknown) => void {
  return (error) => log(`codemode-mcp: ${doing} failed: ${error instanceof Error ? error.message : String(error)}`, 'debug');
}
