/**
 * The host APIs a script reaches, as one object (ScriptApis): each member is one API, answered by
 * the server on the script's behalf. The scripts layer binds each to its owner
 * (src/scripts/owner-scripts.ts), the command builds them once (src/mcp/host-apis.ts), and each
 * API's own rules live in its folder (src/state/state-api.ts, src/skills/skills-api.ts,
 * src/fetch/fetch-api.ts; tools and resources are the hub's). docs/architecture.md, "Host APIs", says what adding one touches.
 */
import type { ResourceCall, StateCall } from '../../protocol/contract.js';
import type { ToolResult } from './types.js';

/** The APIs one script's calls reach; an absent one refuses each call with its code (RESOURCE_UNKNOWN, STATE_OFF, SKILLS_OFF, FETCH_ORIGIN). */
export interface ScriptApis {
  /** `tools[name](args)`. */
  readonly tools: ToolCaller;
  /** `resources.list()`, `resources.templates()`, `resources.read(uri)`. */
  readonly resources?: ResourceCaller;
  /** `store`, `load`, `state.keys`, `state.remove`: the principal's state. */
  readonly state?: StateCaller;
  /** `skills.list()`, `skills.<name>(input)`, `skills.save(...)`: the skills library. */
  readonly skills?: SkillsCaller;
  /** `fetch(url, init)`: the origins the config lists, fetched by the server. */
  readonly fetch?: FetchCaller;
}

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
  /** `run`: fetched to be called (`skills.<name>(input)`), not described: the type check applies. */
  | { readonly call: 'skills.get'; readonly name: string; readonly run?: boolean }
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
