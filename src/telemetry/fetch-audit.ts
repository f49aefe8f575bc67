/**
 * The audit log's fetch lines (issue 49): one per fetch() a script makes, beside the call lines
 * (audit-log.ts): who, which script, the method, origin and path (never the query, a header's
 * value or a body), the status, the body's size, how it ended and how long it took.
 */
import { activeAuditLog } from './audit-log.js';
import type { CallOutcome } from './telemetry.js';

export interface FetchAuditEntry {
  readonly principal: string;
  readonly session: string;
  readonly script: string;
  readonly fetch: { readonly method: string; readonly origin: string; readonly path: string };
  /** The last response's status; absent when none came. */
  readonly status?: number;
  /** The body's bytes as the script got them. */
  readonly bytes?: number;
  /** Redirects followed. */
  readonly redirects: number;
  readonly outcome: CallOutcome;
  /** The refusal's code (FETCH_ORIGIN, APPROVAL_DENIED, …) or FETCH_FAILED. */
  readonly error?: string;
  readonly durationMs: number;
}

/** Writes the line when there is an audit log; with none, nothing. */
export function auditFetch(entry: FetchAuditEntry & { readonly time: string }): void {
  activeAuditLog()?.write(entry);
}
