import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ScriptReturn } from '../../script-host/types.js';
import type { TypeRefusal } from '../../scripts/checked-run.js';
import type { ScriptReply } from '../../scripts/owner-scripts.js';
import { renderList, renderReturn } from './render.js';

/**
 * 2,048 characters: the value, the output and the notify payloads are repeated in
 * structuredContent while each is at most this long as JSON; a longer one travels once, in the
 * text, and structuredContent gives its length instead (valueChars, outputChars, notifyCount).
 */
export const STRUCTURED_REPEAT_MAX_CHARS = 2_048;

/** What code_execution answers for the scripts' reply (an `interrupted` one is the caller's to answer: call.ts). */
export function replyAnswer(reply: Exclude<ScriptReply, { kind: 'interrupted' }>): CallToolResult {
  switch (reply.kind) {
    case 'return':
      return scriptAnswer(reply.ret, reply.approvals, reply.typeCheck);
    case 'refused':
      return refusalAnswer(reply.reason);
    case 'type-refused':
      return typeRefusalAnswer(reply);
    case 'listed':
      return textAnswer(renderList(reply.scripts), { scripts: reply.scripts });
  }
}

/**
 * A return as the code_execution tool answers it: the rendered text, then the content blocks the
 * script showed; and the same facts as data, without repeating what is large. `approvals`: lines
 * on the calls that wait for a person, or that the approval fallback decided (approved-calls.ts);
 * `typeCheck`: what the type check found in a script it let run (typeCheck "warn", or no checker).
 */
export function scriptAnswer(ret: ScriptReturn, approvals: readonly string[] = [], typeCheck?: string): CallToolResult {
  const text = renderReturn(ret, approvals);
  return {
    content: [{ type: 'text', text: typeCheck === undefined ? text : `${text}\n${typeCheck}` }, ...ret.shown.blocks],
    structuredContent: {
      ...structuredOf(ret),
      ...(approvals.length > 0 ? { approvals: [...approvals] } : {}),
      ...(typeCheck !== undefined ? { typeCheck } : {}),
    },
    isError: ret.isError,
  };
}

/** A script the type check refused: its text as the answer (it says nothing ran), each problem as data. */
export function typeRefusalAnswer(refusal: TypeRefusal): CallToolResult {
  return {
    content: [{ type: 'text', text: refusal.text }],
    structuredContent: {
      refused: refusal.text.split('\n', 1)[0] ?? refusal.text,
      ...(refusal.diagnostics.length > 0 ? { diagnostics: refusal.diagnostics.map((d) => ({ ...d })) } : {}),
    },
    isError: true,
  };
}

function structuredOf(ret: ScriptReturn): Record<string, unknown> {
  const small = (chars: number): boolean => chars <= STRUCTURED_REPEAT_MAX_CHARS;
  const outputChars = ret.output.head.length + ret.output.tail.length;
  const notifyChars = ret.notifications.reduce((total, payload) => total + payload.length, 0);
  return {
    script: ret.script,
    status: ret.status,
    calls: { ...ret.calls },
    ...(ret.value === undefined
      ? {}
      : small(ret.value.length)
        ? { value: JSON.parse(ret.value) as unknown }
        : { valueChars: ret.value.length }),
    ...(ret.error !== undefined ? { error: ret.error } : {}),
    ...(ret.stopReason !== undefined ? { stopReason: ret.stopReason } : {}),
    ...(small(notifyChars)
      ? { notifications: ret.notifications.map((payload) => JSON.parse(payload) as unknown) }
      : { notifyCount: ret.notifications.length }),
    ...(small(outputChars) ? { output: { ...ret.output } } : { outputChars, outputDropped: ret.output.dropped }),
    ...(ret.shown.blocks.length > 0 ? { shown: ret.shown.blocks.map(describeShown) } : {}),
    ...(ret.shown.leftOut.blocks > 0 ? { shownLeftOut: { ...ret.shown.leftOut } } : {}),
  };
}

/** A shown block as a fact: its type, and its mime type or uri; its data is in the content. */
function describeShown(block: ScriptReturn['shown']['blocks'][number]): Record<string, unknown> {
  switch (block.type) {
    case 'image':
    case 'audio':
      return { type: block.type, mimeType: block.mimeType, dataChars: block.data.length };
    case 'resource':
      return {
        type: block.type,
        uri: block.resource.uri,
        ...(block.resource.mimeType !== undefined ? { mimeType: block.resource.mimeType } : {}),
      };
    case 'resource_link':
      return { type: block.type, uri: block.uri, name: block.name };
    case 'text':
      return { type: block.type, chars: block.text.length };
  }
}

/** A refusal of input or capacity: nothing ran. */
export function refusalAnswer(message: string): CallToolResult {
  return {
    content: [{ type: 'text', text: `Refused: ${message}` }],
    structuredContent: { refused: message },
    isError: true,
  };
}

function textAnswer(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured, isError: false };
}
