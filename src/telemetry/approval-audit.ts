/**
 * The audit log's approval lines (issue 27): each question a person is asked about a script's
 * calls, and each decision, beside the call lines (audit-log.ts). A call a person allowed also
 * gets its own call line once sent; a refused one never reaches an upstream, so this is its record.
 */
import { activeAuditLog } from './audit-log.js';

/**
 * asked; allowed or denied by a person; timed out; withdrawn (the script ended first); not asked
 * (the asking failed); the fallback for a client that can't ask.
 */
export type ApprovalOutcome =
  'asked' | 'allowed' | 'denied' | 'timed_out' | 'withdrawn' | 'unasked' | 'fallback_allowed' | 'fallback_refused';

export interface ApprovalAuditEntry {
  readonly principal: string;
  readonly session: string;
  readonly script: string;
  /** As the script called it. */
  readonly tool: string;
  readonly approval: ApprovalOutcome;
  /** The calls the question or decision covered. */
  readonly calls: number;
  /** What an allowance covers: `this batch`, `the rest of the script`, `this session, for 30 min`. */
  readonly scope?: string;
}

/** Writes the line when there is an audit log; with none, nothing. */
export function auditApproval(entry: ApprovalAuditEntry): void {
  activeAuditLog()?.write({ time: new Date().toISOString(), ...entry });
}
