import type { CallToolResult } from '@modelcontextprotocol/client';
import type { ResourceCall, StateCall } from '../../protocol/contract.js';
import type { Shown } from './shown-blocks.js';

/** What a tool call resolves to, exactly as the tool sent it. */
export type ToolResult = CallToolResult;

/**
 * How a script's calls reach the tools. Throw ToolRefusedError for a call refused before it was
 * sent; any other throw becomes an `isError` result (the call may have done something).
 */
export type ToolCaller = (
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
  hold?: TimeoutHold,
) => Promise<ToolResult>;

/**
 * A call's timeout (toolCallTimeoutMs), stopped while the call waits for a person's approval and
 * started afresh once it is allowed: a person's minutes don't count against the tool.
 */
export interface TimeoutHold {
  readonly hold: () => void;
  readonly release: () => void;
}

/** One `resources` call of a script: `uri` for resources.read; `label` names it (`resources.read("test://a")`). */
export interface ResourceRequest {
  readonly call: ResourceCall;
  readonly uri?: string;
  readonly label: string;
}

/**
 * How a script's `resources` calls reach the upstreams. Resolves with what the script gets (the
 * list, the templates, the read result); throws as a ToolCaller does.
 */
export type ResourceCaller = (request: ResourceRequest, signal: AbortSignal) => Promise<unknown>;

/** One `store`/`load` call of a script, its arguments checked (call-policy.ts); `label` names it (`load("notes")`). */
export type StateRequest = { readonly label: string } & (
  | { readonly call: Extract<StateCall, 'state.load' | 'state.remove'>; readonly key: string }
  | { readonly call: 'state.store'; readonly key: string; readonly value: unknown; readonly ttlMs?: number }
  | { readonly call: 'state.keys'; readonly prefix?: string }
);

/**
 * How a script's `store`/`load` calls reach its principal's state. Resolves with what the script's
 * prelude takes: `{value}` or `{}` for a load, the list for keys, whether it was there for a
 * remove, anything for a store. Throws a RefusedError past a limit (nothing was written); any
 * other throw is a backend that failed (StateFailedError).
 */
export type StateCaller = (request: StateRequest, signal: AbortSignal) => Promise<unknown>;

/** One `skills` call of a script, its arguments checked (call-policy.ts); `label` names it (`skills.get("triage")`). */
export type SkillsRequest = { readonly label: string } & (
  | { readonly call: 'skills.list' }
  | { readonly call: 'skills.get'; readonly name: string }
  | {
      readonly call: 'skills.save';
      readonly name: string;
      readonly description: string;
      readonly code: string;
      readonly inputSchema?: Readonly<Record<string, unknown>>;
      readonly language?: string;
      readonly overwrite?: boolean;
    }
);

/**
 * How a script's `skills` calls reach the skills library. Resolves with what the prelude takes:
 * `[{name, description}]` for a list, `{name, description, language, code, inputSchema?}` for a
 * get, `{name, description, digest}` for a save. Throws a RefusedError for a refusal (an unknown
 * skill, a bad name, a save not allowed); any other throw is the library failing (SkillsFailedError).
 */
export type SkillsCaller = (request: SkillsRequest, signal: AbortSignal) => Promise<unknown>;

/** One fetch() of a script, its arguments checked (fetch-request.ts). */
export interface FetchRequest {
  readonly url: string;
  /** Upper case. */
  readonly method: string;
  /** Names lower-cased, none twice (the prelude's Headers joins repeated ones). */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** The body: text (sent as UTF-8) or the base64 of its bytes. */
  readonly body?: { readonly text: string } | { readonly base64: string };
  readonly redirect: 'follow' | 'manual' | 'error';
  /** How the record names it: `fetch GET https://api.github.com/user`. */
  readonly label: string;
}

/**
 * What the prelude's fetch() makes its Response of: the response, its body as text when the bytes
 * are UTF-8 and as base64 when not; or, for a request that failed on the way, `failed`, which the
 * script gets as a TypeError, as the web's fetch gives one (`isError` marks it for the counts, as
 * a tool's failed result is marked).
 */
export type FetchAnswer =
  | {
      readonly status: number;
      readonly statusText: string;
      readonly url: string;
      readonly redirected: boolean;
      readonly headers: ReadonlyArray<readonly [string, string]>;
      readonly bodyText?: string;
      readonly bodyBase64?: string;
    }
  | { readonly failed: string; readonly isError: true };

/**
 * How a script's fetch() calls reach the server's fetcher. Throws a RefusedError for a request
 * refused (by the policy, or a person): the script's ToolRefused. `hold` stops the call's
 * toolCallTimeoutMs while a person is asked.
 */
export type FetchCaller = (request: FetchRequest, signal: AbortSignal, hold?: TimeoutHold) => Promise<FetchAnswer>;

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
