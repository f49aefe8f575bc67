import {
  CALLS_IN_FLIGHT_MAX,
  CALL_ARGS_MAX_BYTES,
  CALL_ARGS_MAX_VALUES,
  RESOURCE_CALLS,
  SKILL_CALLS,
  STATE_CALLS,
  type Breach,
  type CallMessage,
  type ResourceCall,
} from '../../protocol/contract.js';
import { countJsonValues } from '../../protocol/frames.js';
import { cutText } from './call-label.js';
import type { FetchRequest, SkillsRequest, StateRequest } from './apis.js';
import { fetchRequest } from './fetch-request.js';

/** A call the child may make, its arguments parsed: a tool's, or one of a built-in API's (`resources`, `store`/`load`). */
export type AdmittedCall =
  | {
      readonly kind: 'tool';
      readonly id: number;
      readonly tool: string;
      readonly args: Record<string, unknown>;
      readonly argsJson: string;
    }
  | {
      readonly kind: 'resource';
      readonly id: number;
      readonly call: ResourceCall;
      /** For resources.read. */
      readonly uri?: string;
      /** How the record names it: `resources.read("test://a")`. */
      readonly label: string;
      readonly argsJson: string;
    }
  | { readonly kind: 'state'; readonly id: number; readonly request: StateRequest; readonly argsJson: string }
  | { readonly kind: 'skills'; readonly id: number; readonly request: SkillsRequest; readonly argsJson: string }
  | { readonly kind: 'fetch'; readonly id: number; readonly request: FetchRequest; readonly argsJson: string };

/**
 * Which of the child's calls are sent on: a tool the script was given, an id above the last,
 * within the calls in flight and the arguments' caps, arguments that are a JSON object (their
 * values counted before they are parsed), and a built-in API's call as the prelude makes it.
 * Anything else is a breach.
 */
export class CallPolicy {
  /** The child numbers its calls 1, 2, 3…: an id not above the last is reused or out of order. */
  private lastCallId = 0;

  constructor(private readonly gives: (tool: string) => boolean) {}

  admit(message: CallMessage, openCount: number): AdmittedCall | { readonly breach: Breach } {
    if (message.api !== true && !this.gives(message.tool)) return { breach: 'TOOL_NOT_GIVEN' };
    if (message.id <= this.lastCallId) return { breach: 'CALL_ID_REUSED' };
    this.lastCallId = message.id;
    if (openCount >= CALLS_IN_FLIGHT_MAX) return { breach: 'TOO_MANY_CALLS' };
    if (Buffer.byteLength(message.args, 'utf8') > CALL_ARGS_MAX_BYTES) return { breach: 'ARGS_TOO_LARGE' };
    if (countJsonValues(message.args, CALL_ARGS_MAX_VALUES) > CALL_ARGS_MAX_VALUES) return { breach: 'ARGS_TOO_MANY_VALUES' };
    let args: unknown;
    try {
      args = JSON.parse(message.args);
    } catch {
      return { breach: 'ARGS_INVALID' };
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return { breach: 'ARGS_INVALID' };
    const fields = args as Record<string, unknown>;
    if (message.api === true) return apiCall(message, fields);
    return { kind: 'tool', id: message.id, tool: message.tool, args: fields, argsJson: message.args };
  }
}

const UNKNOWN = { breach: 'API_CALL_UNKNOWN' } as const;

/** A call of a built-in API: its name and arguments are the prelude's, so anything else is a breach. */
function apiCall(message: CallMessage, args: Record<string, unknown>): AdmittedCall | { readonly breach: Breach } {
  if (message.tool.startsWith('state.')) return stateCall(message, args);
  if (message.tool.startsWith('skills.')) return skillsCall(message, args);
  if (message.tool === 'fetch') {
    const request = fetchRequest(args);
    return request === null ? UNKNOWN : { kind: 'fetch', id: message.id, request, argsJson: message.args };
  }
  return resourceCall(message, args);
}

function resourceCall(message: CallMessage, args: Record<string, unknown>): AdmittedCall | { readonly breach: Breach } {
  const call = RESOURCE_CALLS.find((name) => name === message.tool);
  const keys = Object.keys(args);
  const uri = args.uri;
  const fits = call === 'resources.read' ? keys.length === 1 && typeof uri === 'string' : keys.length === 0;
  if (call === undefined || !fits) return UNKNOWN;
  if (typeof uri === 'string') {
    return {
      kind: 'resource',
      id: message.id,
      call,
      uri,
      label: `${call}(${cutText(JSON.stringify(uri))})`,
      argsJson: message.args,
    };
  }
  return { kind: 'resource', id: message.id, call, label: `${call}()`, argsJson: message.args };
}

/** A `store`/`load` call: `{key}`, `{key, value, ttlMs?}` or `{prefix?}`, as state.ts in the prelude makes them. */
function stateCall(message: CallMessage, args: Record<string, unknown>): AdmittedCall | { readonly breach: Breach } {
  const request = stateRequest(message.tool, args);
  return request === null ? UNKNOWN : { kind: 'state', id: message.id, request, argsJson: message.args };
}

function stateRequest(name: string, args: Record<string, unknown>): StateRequest | null {
  const call = STATE_CALLS.find((known) => known === name);
  const fields = Object.keys(args);
  const { key, value, ttlMs, prefix } = args;
  const quoted = typeof key === 'string' ? cutText(JSON.stringify(key)) : '';
  switch (call) {
    case 'state.load':
    case 'state.remove':
      if (fields.length !== 1 || typeof key !== 'string') return null;
      return { call, key, label: call === 'state.load' ? `load(${quoted})` : `state.remove(${quoted})` };
    case 'state.store': {
      const ttlGiven = 'ttlMs' in args;
      if (fields.length !== (ttlGiven ? 3 : 2) || typeof key !== 'string' || !('value' in args)) return null;
      if (ttlGiven && !(typeof ttlMs === 'number' && Number.isSafeInteger(ttlMs) && ttlMs > 0)) return null;
      const label = `store(${quoted}, value)`;
      return ttlGiven ? { call, key, value, ttlMs: ttlMs as number, label } : { call, key, value, label };
    }
    case 'state.keys':
      if (fields.length > 1 || (fields.length === 1 && typeof prefix !== 'string')) return null;
      return typeof prefix === 'string'
        ? { call, prefix, label: `state.keys(${cutText(JSON.stringify(prefix))})` }
        : { call, label: 'state.keys()' };
    default:
      return null;
  }
}

/** A `skills` call: `{}`, `{name}` or a save's fields, as skills.ts in the prelude makes them. */
function skillsCall(message: CallMessage, args: Record<string, unknown>): AdmittedCall | { readonly breach: Breach } {
  const request = skillsRequest(message.tool, args);
  return request === null ? UNKNOWN : { kind: 'skills', id: message.id, request, argsJson: message.args };
}

const SAVE_FIELDS: Readonly<Record<string, (value: unknown) => boolean>> = {
  name: (value) => typeof value === 'string',
  description: (value) => typeof value === 'string',
  code: (value) => typeof value === 'string',
  inputSchema: (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  language: (value) => typeof value === 'string',
  overwrite: (value) => typeof value === 'boolean',
};

function skillsRequest(name: string, args: Record<string, unknown>): SkillsRequest | null {
  const call = SKILL_CALLS.find((known) => known === name);
  const fields = Object.keys(args);
  switch (call) {
    case 'skills.list':
      return fields.length === 0 ? { call, label: 'skills.list()' } : null;
    case 'skills.get': {
      const { name: skill, run } = args;
      const fits = fields.every((field) => field === 'name' || field === 'run');
      if (!fits || typeof skill !== 'string' || (run !== undefined && run !== true)) return null;
      return { call, name: skill, ...(run === true ? { run } : {}), label: `skills.get(${cutText(JSON.stringify(skill))})` };
    }
    case 'skills.save': {
      const fits = fields.every((field) => Object.hasOwn(SAVE_FIELDS, field) && SAVE_FIELDS[field]!(args[field]));
      if (!fits || !['name', 'description', 'code'].every((field) => field in args)) return null;
      const save = args as Omit<Extract<SkillsRequest, { call: 'skills.save' }>, 'call' | 'label'>;
      return { ...save, call, label: `skills.save(${cutText(JSON.stringify(save.name))})` };
    }
    default:
      return null;
  }
}
