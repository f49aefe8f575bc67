/**
 * Opening `--log-file`: never blocking, and only what can take a log. Opening a FIFO for writing
 * waits for a reader, forever if none comes, so the open is non-blocking and a FIFO, a socket, a
 * directory or a device is refused by what it is; a terminal is taken.
 */
import { closeSync, constants, fstatSync, openSync, statSync, type Stats } from 'node:fs';
import { isatty } from 'node:tty';
import { dirname } from 'node:path';
import { CodemodeError } from './errors.js';

const { O_APPEND, O_CREAT, O_NONBLOCK, O_WRONLY } = constants;

/**
 * A log file that can't be opened for appending: the message says which, where the user named it
 * (`source`: `--log-file, settings.logFile`, from the caller that knows the setting) and what to do.
 */
export class LogFileError extends CodemodeError {
  override readonly name = 'LogFileError';

  constructor(path: string, source: string, why: string) {
    super('LOG_FILE_INVALID', `cannot append to the log file ${path} (${source}): ${why}`);
  }
}

/**
 * Opens `path` for appending (created if missing, with `mode` less the umask; its directory is
 * not, so a mistyped directory is caught here rather than silently made) and returns its
 * descriptor. Throws LogFileError, naming `source` as where the path was given.
 */
export function openLogFile(path: string, source: string, mode = 0o666): number {
  let fd: number;
  try {
    fd = openSync(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK, mode);
  } catch (error) {
    // A FIFO with no reader, or a socket, refuses a non-blocking open (ENXIO): say what it is.
    const why = refusedKind(statOrUndefined(path)) ?? openFailure(path, error as NodeJS.ErrnoException);
    throw new LogFileError(path, source, why);
  }
  const stats = fstatSync(fd);
  if (stats.isFile()) return fd;
  const terminal = stats.isCharacterDevice() && isatty(fd);
  closeSync(fd);
  if (!terminal) throw new LogFileError(path, source, refusedKind(stats)!);
  // Writes to a terminal opened non-blocking could fail while it is busy; the path is known to be one now.
  return openSync(path, O_WRONLY | O_APPEND);
}

/** Why a file of this kind can't take the log, or undefined for a regular file (or nothing there). */
function refusedKind(stats: Stats | undefined): string | undefined {
  if (stats === undefined || stats.isFile()) return undefined;
  if (stats.isDirectory()) return DIRECTORY;
  const kind = stats.isFIFO()
    ? 'a named pipe (FIFO), which would hold every log line until something reads it'
    : stats.isSocket()
      ? 'a socket'
      : 'a device other than a terminal';
  return `it is ${kind}; give the path of a regular file (or a terminal)`;
}

const DIRECTORY = 'it is a directory; give the path of a file in it';

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined; // the open's own error says why
  }
}

function openFailure(path: string, cause: NodeJS.ErrnoException): string {
  return cause.code === 'ENOENT'
    ? `its directory ${dirname(path)} does not exist; create it, or give a path in a directory that does`
    : cause.code === 'EISDIR'
      ? DIRECTORY
      : cause.code === 'EACCES' || cause.code === 'EPERM'
        ? 'it may not be written here; give a path you can write to'
        : `${cause.message}; give a path to a file you can write to`;
}
