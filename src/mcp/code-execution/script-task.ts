/**
 * A script handed over as an MCP task by its `run` (caller-tasks.ts): its ending is the answer a
 * `wait` would give, in the Tasks extension's terms (SEP-2663): a script's own error is a
 * `completed` task whose result has `isError`; `failed` is for a script the server's shutdown
 * stopped, since no answer for it could be made; `cancelled` for one stopped on request.
 */
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { ScriptReturn } from '../../script-host/types.js';
import type { TaskView } from '../../scripts/owner-scripts.js';
import type { Ended, TaskWork } from '../caller-tasks.js';
import { scriptAnswer } from './answer.js';

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
      // A question only the model can pass on (the approval page's link) must reach it through the status too.
      const approvals = ended ? [] : view.waitingApproval().map((call) => `; waiting for approval: ${call}`);
      return `script ${script.id} ${state}: ${counts}${notify}${approvals.join('')}`;
    },
    cancel: () => script.stop('requested'),
  };
}

/**
 * A script's ending as a terminal status: ended by itself or by its lifetime, it completed (an
 * error is the result's `isError`); stopped on request, cancelled; stopped by the server shutting
 * down, failed, since no answer for it could be made.
 */
function scriptEnded({ ret, typeCheck }: { readonly ret: ScriptReturn; readonly typeCheck?: string }): Ended {
  if (ret.status === 'stopped' && (ret.stopReason === 'requested' || ret.stopReason === 'watch-cancelled')) {
    return { status: 'cancelled' };
  }
  if (ret.status === 'stopped' && ret.stopReason === 'shutdown') {
    return {
      status: 'failed',
      error: { code: ProtocolErrorCode.InternalError, message: 'the server shut down while the script ran' },
    };
  }
  return { status: 'completed', result: scriptAnswer(ret, [], typeCheck) };
}
