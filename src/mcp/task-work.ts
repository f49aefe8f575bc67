/**
 * What an MCP task runs (caller-tasks.ts): a script handed over by its `run`, or an exposed tool's
 * call made as a task. Each says how it ended in the Tasks extension's terms (SEP-2663): a tool's
 * own error is a `completed` task whose result has `isError`; `failed` is for a call that got no
 * result at all (a protocol error, the server shutting down); `cancelled` for one stopped on request.
 */
import { ProtocolErrorCode, type CallToolResult } from '@modelcontextprotocol/server';
import type { ScriptReturn } from '../script-host/types.js';
import { scriptAnswer } from '../scripts/answer.js';
import type { TaskView } from '../scripts/session-scripts.js';
import type { Ended, TaskWork } from './caller-tasks.js';

/** 200 characters of the latest notify() payload in a status line. */
const NOTIFY_SHOWN_CHARS = 200;

/** A script as a task: its ending is the answer a `wait` would give. */
export function scriptWork(view: TaskView): TaskWork {
  const { script } = view;
  return {
    key: script.id,
    ended: script.ended.then(() => scriptEnded(view.takeEnding())),
    statusLine: (ended) => {
      const { calls, latestNotify } = script.progress();
      const state = ended ? script.status : `running ${Math.round((Date.now() - view.startedAt) / 1000)} s`;
      const counts = `${calls.answered} call${calls.answered === 1 ? '' : 's'} answered${calls.inFlight > 0 ? `, ${calls.inFlight} in flight` : ''}`;
      const notify =
        latestNotify === undefined
          ? ''
          : `; last notify: ${latestNotify.length <= NOTIFY_SHOWN_CHARS ? latestNotify : `${latestNotify.slice(0, NOTIFY_SHOWN_CHARS)}…`}`;
      return `script ${script.id} ${state}: ${counts}${notify}`;
    },
    cancel: () => script.stop('requested'),
  };
}

/**
 * A script's ending as a terminal status: ended by itself or by its lifetime, it completed (an
 * error is the result's `isError`); stopped on request, cancelled; stopped by the server shutting
 * down, failed, since no answer for it could be made.
 */
function scriptEnded(ret: ScriptReturn): Ended {
  if (ret.status === 'stopped' && (ret.stopReason === 'requested' || ret.stopReason === 'watch-cancelled')) {
    return { status: 'cancelled' };
  }
  if (ret.status === 'stopped' && ret.stopReason === 'shutdown') {
    return {
      status: 'failed',
      error: { code: ProtocolErrorCode.InternalError, message: 'the server shut down while the script ran' },
    };
  }
  return { status: 'completed', result: scriptAnswer(ret) };
}

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
