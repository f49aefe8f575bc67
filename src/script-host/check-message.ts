import {
  ERROR_MAX_CHARS,
  FRAME_MAX_VALUES,
  NOTIFY_PAYLOAD_MAX_CHARS,
  OUTPUT_BATCH_MAX_CHARS,
  VALUE_MAX_CHARS,
  type Breach,
  type ChildMessage,
} from '../../protocol/contract.js';
import { countJsonValues, splitFrameBody } from '../../protocol/frames.js';
import { parseShownBlocks } from './shown-blocks.js';

export type Checked = { readonly ok: true; readonly message: ChildMessage } | { readonly ok: false; readonly breach: Breach };

const END_STATUSES = new Set(['finished', 'failed', 'stopped']);
/** The value cap, plus room for the string that says a value was past it. */
const VALUE_FIELD_MAX_CHARS = VALUE_MAX_CHARS + 1_024;
/** The same in UTF-8 bytes, at most 3 a character: a payload past it is too large before it is decoded. */
const VALUE_FIELD_MAX_BYTES = 3 * VALUE_FIELD_MAX_CHARS;

/**
 * Checks one frame from the untrusted child: its values are counted before it is parsed, and
 * each message's fields are checked for type and size. Only an ending carries a payload: its value.
 */
export function checkChildFrame(body: Buffer): Checked {
  const { json: text, payload } = splitFrameBody(body);
  if (countJsonValues(text, FRAME_MAX_VALUES) > FRAME_MAX_VALUES) return breach('FRAME_TOO_MANY_VALUES');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return breach('FRAME_UNDECODABLE');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return breach('FRAME_UNDECODABLE');
  const m = parsed as Record<string, unknown>;
  if (payload.length > 0 && m.t !== 'end') return breach('FRAME_UNDECODABLE');
  switch (m.t) {
    case 'ready':
      return typeof m.v === 'number' && (m.prelude === 'snapshot' || m.prelude === 'evaluated')
        ? ok(m)
        : breach('FRAME_UNDECODABLE');
    case 'call':
      return isCallId(m.id) &&
        typeof m.tool === 'string' &&
        typeof m.args === 'string' &&
        (m.resource === undefined || m.resource === true)
        ? ok(m)
        : breach('FRAME_UNDECODABLE');
    case 'out':
      if (typeof m.text !== 'string') return breach('FRAME_UNDECODABLE');
      return m.text.length > OUTPUT_BATCH_MAX_CHARS ? breach('OUTPUT_PAST_BATCH') : ok(m);
    case 'notify':
      if (typeof m.payload !== 'string') return breach('FRAME_UNDECODABLE');
      return m.payload.length > NOTIFY_PAYLOAD_MAX_CHARS || !isJson(m.payload) ? breach('NOTIFY_INVALID') : ok(m);
    case 'show':
      if (typeof m.blocks !== 'string') return breach('FRAME_UNDECODABLE');
      return parseShownBlocks(m.blocks) === null ? breach('SHOW_INVALID') : ok(m);
    case 'end':
      if (typeof m.status !== 'string' || !END_STATUSES.has(m.status)) return breach('FRAME_UNDECODABLE');
      // The value is the payload, never a field.
      if (m.value !== undefined || !optionalString(m.error) || !optionalString(m.unsent)) return breach('FRAME_UNDECODABLE');
      if (m.read !== undefined && !(Number.isSafeInteger(m.read) && (m.read as number) >= 0)) return breach('FRAME_UNDECODABLE');
      if (typeof m.error === 'string' && m.error.length > ERROR_MAX_CHARS) return breach('FRAME_UNDECODABLE');
      if (payload.length === 0) return ok(m);
      return checkedValue(m, payload);
    default:
      return breach('FRAME_UNDECODABLE');
  }
}

/** An ending with its value, the frame's payload: within the cap, and JSON. */
function checkedValue(ending: Record<string, unknown>, payload: Buffer): Checked {
  if (payload.length > VALUE_FIELD_MAX_BYTES) return breach('VALUE_TOO_LARGE');
  const value = payload.toString('utf8');
  if (value.length > VALUE_FIELD_MAX_CHARS) return breach('VALUE_TOO_LARGE');
  return isJson(value) ? ok({ ...ending, value }) : breach('VALUE_NOT_JSON');
}

/** The payload and the value travel as JSON text, and the server parses them: text that isn't JSON is a breach, not a throw. */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function isCallId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

function optionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

function ok(message: Record<string, unknown>): Checked {
  return { ok: true, message: message as unknown as ChildMessage };
}

function breach(reason: Breach): Checked {
  return { ok: false, breach: reason };
}
