import type { Shown } from './shown-blocks.js';

/**
 * What a tool call resolves to, exactly as the tool sent it (an MCP CallToolResult, checked by
 * the upstream's connection): the script gets it as JSON, so nothing here reads past its shape.
 */
export interface ToolResult {
  readonly content: readonly unknown[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
  readonly [field: string]: unknown;
}

/** An upstream's progress on a call (MCP's `notifications/progress` params, less the token). */
export interface ToolProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

export type ScriptStatus = 'running' | 'finished' | 'failed' | 'crashed' | 'stopped';

/** Why a script was stopped. */
export type StopReason = 'requested' | 'lifetime' | 'watch-cancelled' | 'shutdown';

/** A call whose answer the script never saw. */
export interface UnseenCall {
  readonly tool: string;
  /** For a `resources` call, the call as the record names it (`resources.read("test://a")`), instead of tool and arguments. */
  readonly label?: string;
  /** The arguments as the script sent them (JSON text). */
  readonly args: string;
  readonly fate: string;
}

export interface CallSummary {
  /** Calls whose answer (a result, or ResultTooLarge) the script read. */
  readonly answered: number;
  /** Calls the server refused before sending them (ToolRefused in the script): nothing happened. */
  readonly refused: number;
  /** Of the refused, those a person denied (approvals); absent when none. */
  readonly deniedByPerson?: number;
  readonly inFlight: number;
  /** At most CALLS_NAMED_MAX, oldest first. */
  readonly unseen: readonly UnseenCall[];
  /** The unseen calls past the named ones, counted by tool. */
  readonly unseenMore: Readonly<Record<string, number>>;
  /** Calls the script made that were never sent, counted by tool. */
  readonly unsent: Readonly<Record<string, number>>;
}

export interface OutputSlice {
  readonly head: string;
  readonly tail: string;
  /** Exact count of characters dropped between head and tail. */
  readonly dropped: number;
}

/** One answer about a script: what it did since the last one, and its ending once it has one. */
export interface ScriptReturn {
  readonly script: string;
  readonly status: ScriptStatus;
  readonly calls: CallSummary;
  /** The value as JSON text, when the script finished with one. */
  readonly value?: string;
  /** What went wrong, for failed, crashed and stopped. */
  readonly error?: string;
  readonly stopReason?: StopReason;
  readonly output: OutputSlice;
  /** notify() payloads since the last return, as JSON text. */
  readonly notifications: readonly string[];
  /** Content blocks shown since the last return (show(), or a returned tool result's non-text blocks), and those left out. */
  readonly shown: Shown;
  readonly isError: boolean;
}
