import {
  CALLS_IN_FLIGHT_MAX,
  CALL_ARGS_MAX_BYTES,
  CALL_ARGS_MAX_VALUES,
  RESOURCE_CALLS,
  type Breach,
  type CallMessage,
  type ResourceCall,
} from '../../protocol/contract.js';
import { countJsonValues } from '../../protocol/frames.js';
import { cutText } from './render.js';

/** A call the child may make, its arguments parsed: a tool's, or one of the `resources` API's. */
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
    };

/**
 * Which of the child's calls are sent on: a tool the script was given, an id above the last,
 * within the calls in flight and the arguments' caps, arguments that are a JSON object (their
 * values counted before they are parsed), and a `resources` call as the prelude makes it.
 * Anything else is a breach.
 */
export class CallPolicy {
  /** The child numbers its calls 1, 2, 3…: an id not above the last is reused or out of order. */
  private lastCallId = 0;

  constructor(private readonly gives: (tool: string) => boolean) {}

  admit(message: CallMessage, openCount: number): AdmittedCall | { readonly breach: Breach } {
    if (message.resource !== true && !this.gives(message.tool)) return { breach: 'TOOL_NOT_GIVEN' };
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
    if (message.resource === true) return resourceCall(message, fields);
    return { kind: 'tool', id: message.id, tool: message.tool, args: fields, argsJson: message.args };
  }
}

/** A call of the `resources` API: its name and arguments are the prelude's, so anything else is a breach. */
function resourceCall(message: CallMessage, args: Record<string, unknown>): AdmittedCall | { readonly breach: Breach } {
  const call = RESOURCE_CALLS.find((name) => name === message.tool);
  const keys = Object.keys(args);
  const uri = args.uri;
  const fits = call === 'resources.read' ? keys.length === 1 && typeof uri === 'string' : keys.length === 0;
  if (call === undefined || !fits) return { breach: 'RESOURCE_CALL_UNKNOWN' };
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
