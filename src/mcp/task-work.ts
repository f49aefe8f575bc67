/**
 * An exposed tool's call made an MCP task (caller-tasks.ts; a script handed over by its `run` is
 * code-execution/script-task.ts). It says how it ended in the Tasks extension's terms (SEP-2663):
 * a tool's own error is a `completed` task whose result has `isError`; `failed` is for a call that
 * got no result at all (a protocol error); `cancelled` for one stopped on request.
 */
import { ProtocolErrorCode, type CallToolResult } from '@modelcontextprotocol/server';
import type { Ended, TaskWork } from './caller-tasks.js';

/**
 * An exposed tool's call as a task: `call` is made at once with a signal that `cancel` aborts.
 * Its result completes the task (an `isError` one included); a thrown error fails it, with the
 * error's JSON-RPC code when it has one.
 */
export function callWork(key: string, tool: string, call: (signal: AbortSignal) => Promise<CallToolResult>): TaskWork {
  const stop = new AbortController();
  const startedAt = Date.now();
  const ended = call(stop.signal).then(
    (result): Ended => ({ status: 'completed', result }),
    (error: unknown): Ended => {
      if (stop.signal.aborted) return { status: 'cancelled' };
      const { code, message } = error as { code?: unknown; message?: unknown };
      return {
        status: 'failed',
        error: {
          code: typeof code === 'number' ? code : ProtocolErrorCode.InternalError,
          message: typeof message === 'string' ? message : String(error),
        },
      };
    },
  );
  let settled = false;
  void ended.then(() => (settled = true));
  return {
    key,
    ended,
    statusLine: () => `${tool} ${settled ? 'answered' : `running ${Math.round((Date.now() - startedAt) / 1000)} s`}`,
    cancel: () => stop.abort(new Error(`${tool} was cancelled (tasks/cancel)`)),
  };
}
