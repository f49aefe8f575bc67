import { createHash } from 'node:crypto';
import { CodemodeError, RefusedError } from '../support/errors.js';
import type { CallOutcome } from './telemetry.js';

/** How a call ended, from its result or its error: refused (nothing sent), failed, a tool error, answered. */
export function callOutcome(ending: { result: { readonly isError?: boolean } } | { error: unknown }): CallOutcome {
  if ('result' in ending) return ending.result.isError === true ? 'tool_error' : 'answered';
  return ending.error instanceof RefusedError ? 'refused' : 'failed';
}

/** An error as `error.type` names it: our code (`TOOL_UNKNOWN`, `UPSTREAM_LOST`), else the error's class. */
export function errorType(error: unknown): string {
  if (error instanceof CodemodeError) return error.code;
  return error instanceof Error ? error.name : typeof error;
}

/** Text as the audit log and a script's span describe it without quoting it: its UTF-8 size and SHA-256, in hex. */
export function describeText(text: string): { readonly bytes: number; readonly sha256: string } {
  return { bytes: Buffer.byteLength(text, 'utf8'), sha256: createHash('sha256').update(text).digest('hex') };
}
