/**
 * The audit log (`--audit-log <file>`): one JSON line per tool call a script makes, saying who
 * (the principal and the session), which script, which upstream and tool, the arguments' size
 * and SHA-256 (the arguments themselves with auditArguments), the outcome and the duration.
 * Appended, never rewritten; created 0600; reopened on SIGUSR2, so it can be rotated by renaming
 * (SIGHUP already ends the server, src/support/end-signals.ts).
 */
import { closeSync, writeSync } from 'node:fs';
import { openLogFile } from '../support/log-file.js';
import { revealControls } from '../support/echo.js';
import type { Log } from '../support/log.js';
import type { CallOutcome } from './telemetry.js';
import type { ApprovalAuditEntry } from './approval-audit.js';
import type { FetchAuditEntry } from './fetch-audit.js';

/** The signal that reopens the audit log at its path. */
export const AUDIT_REOPEN_SIGNAL = 'SIGUSR2';

export interface AuditEntry {
  /** ISO 8601, when the call was made. */
  readonly time: string;
  /** Whose state the session's scripts use: `local` over stdio, the session's over HTTP. */
  readonly principal: string;
  /** The session, as messages name it (over HTTP its id). */
  readonly session: string;
  readonly script: string;
  /** Absent when no upstream has the tool (the call was refused). */
  readonly upstream?: string;
  /** As the script called it. */
  readonly tool: string;
  readonly args: { readonly bytes: number; readonly sha256: string; readonly value?: unknown };
  readonly outcome: CallOutcome;
  /** The error's code or class, for a refused or failed call. */
  readonly error?: string;
  readonly durationMs: number;
}

export class AuditLog {
  private fd: number;
  private readonly onReopen = (): void => this.reopen();

  constructor(
    readonly path: string,
    /** Put each call's arguments in its line (auditArguments). */
    readonly withArguments: boolean,
    private readonly log: Log,
  ) {
    this.fd = openAuditFile(path);
    process.on(AUDIT_REOPEN_SIGNAL, this.onReopen);
  }

  /** A call's line, an approval's (approval-audit.ts) or a fetch's (fetch-audit.ts). */
  write(entry: AuditEntry | ((ApprovalAuditEntry | FetchAuditEntry) & { readonly time: string })): void {
    // Sync and whole: each line lands in order, and none is left in a buffer at exit. JSON leaves
    // U+0085, U+2028 and U+2029 raw in strings, and readers that split lines the Unicode way
    // (Python's splitlines, some log shippers) end a line there: escaped, as are the other
    // controls and bidi marks, a record is one line by every reader's rule, meaning the same.
    writeSync(
      this.fd,
      `${revealControls(JSON.stringify(entry))}
`,
    );
  }

  /** Opens the path again (a rotation renamed the file): later lines go to a new file there. */
  reopen(): void {
    let fd: number;
    try {
      fd = openAuditFile(this.path);
    } catch (error) {
      // The old file still takes the lines: none is lost while the path can't be opened.
      this.log(`codemode-mcp: reopening the audit log on ${AUDIT_REOPEN_SIGNAL}: ${(error as Error).message}`, 'error');
      return;
    }
    closeSync(this.fd);
    this.fd = fd;
    this.log(`codemode-mcp: audit log reopened at ${this.path}`, 'info');
  }

  close(): void {
    process.off(AUDIT_REOPEN_SIGNAL, this.onReopen);
    closeSync(this.fd);
  }
}

function openAuditFile(path: string): number {
  return openLogFile(path, '--audit-log, settings.auditLog', 0o600);
}

let active: AuditLog | undefined;

/** The audit log every session's scripts' calls are written to; undefined when there is none. */
export function activeAuditLog(): AuditLog | undefined {
  return active;
}

export function setActiveAuditLog(log: AuditLog | undefined): void {
  active = log;
}
