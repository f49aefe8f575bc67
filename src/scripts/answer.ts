import type { CallToolResult } from '@modelcontextprotocol/server';
import { renderReturn } from '../isolate/render.js';
import type { ScriptReturn } from '../isolate/types.js';

/** A return as the code_execution tool answers it: the rendered text, and the same facts as data. */
export function scriptAnswer(ret: ScriptReturn): CallToolResult {
  return {
    content: [{ type: 'text', text: renderReturn(ret) }],
    structuredContent: {
      script: ret.script,
      status: ret.status,
      calls: { ...ret.calls },
      ...(ret.value !== undefined ? { value: JSON.parse(ret.value) as unknown } : {}),
      ...(ret.error !== undefined ? { error: ret.error } : {}),
      ...(ret.stopReason !== undefined ? { stopReason: ret.stopReason } : {}),
      notifications: ret.notifications.map((payload) => JSON.parse(payload) as unknown),
      output: { ...ret.output },
    },
    isError: ret.isError,
  };
}

/** A refusal of input or capacity: nothing ran. */
export function refusalAnswer(message: string): CallToolResult {
  return {
    content: [{ type: 'text', text: `Refused: ${message}` }],
    structuredContent: { refused: message },
    isError: true,
  };
}

export function textAnswer(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured, isError: false };
}
