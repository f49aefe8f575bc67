import { CHILD_MESSAGES, FRAME_MAX_VALUES, type Breach, type ChildMessage } from '../../protocol/contract.js';
import { countJsonValues, splitFrameBody } from '../../protocol/frames.js';
import { checkShape } from '../../protocol/shape.js';
import { parseShownBlocks } from './shown-blocks.js';

export type Checked = { readonly ok: true; readonly message: ChildMessage } | { readonly ok: false; readonly breach: Breach };

/**
 * Checks one frame from the untrusted child: its values are counted before it is parsed, then the
 * message is checked against its shape (protocol/contract.ts, CHILD_MESSAGES), and shown blocks
 * against MCP's content blocks. Only an ending carries a payload: its value.
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
  const checked = checkShape(CHILD_MESSAGES, parsed as Record<string, unknown>, payload, 'FRAME_UNDECODABLE');
  if (!checked.ok) return breach(checked.refusal);
  // The blocks' shape is MCP's, which the server's SDK knows and protocol/ does not.
  if (checked.message.t === 'show' && parseShownBlocks(checked.message.blocks) === null) return breach('SHOW_INVALID');
  return { ok: true, message: checked.message };
}

function breach(reason: Breach): Checked {
  return { ok: false, breach: reason };
}
