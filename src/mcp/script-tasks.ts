/**
 * One owner's scripts as MCP tasks (the Tasks extension, SEP-2663), for a 2026-07-28 client that
 * declares it: a `run` whose script is still running when its yield passes, or that needs the
 * client's input first, answers with a task instead of the output so far, and the script is the
 * task. `tasks/get` tells its status and, once it has ended, gives the answer a `wait` would have
 * given; `tasks/update` answers what waits for the client (an upstream's elicitation, sampling or
 * roots request); `tasks/cancel` stops it. A task id is its script's id and a random part, so it
 * routes like the script (the instance prefix) and can't be guessed; it is found only among its
 * owner's tasks, so another principal's `tasks/get` is answered as unknown.
 */
import { randomBytes } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode, type CallToolResult, type InputRequests } from '@modelcontextprotocol/server';
import type { ScriptStatus } from '../script-host/types.js';
import type { ScriptReturn } from '../script-host/types.js';
import { scriptAnswer } from '../scripts/answer.js';
import type { TaskView } from '../scripts/session-scripts.js';
import { quoteInput } from '../support/echo.js';
import type { InputQueue } from './input-queue.js';

/**
 * 1 hour: how long a task's result is kept once its script could have ended. A task's `ttlMs`
 * is counted from its creation (SEP-2663), so it is the script's longest life (scriptLifetimeMs)
 * and then this.
 */
export const TASK_RESULT_KEPT_MS = 60 * 60 * 1000;

/**
 * 1 second: how often a client should ask (`pollIntervalMs`). A task's status moves when its
 * script ends or asks for input, and its status line with each call answered: a second apart is
 * as often as a person or a model can use it, and no more than a `wait` costs.
 */
export const TASK_POLL_INTERVAL_MS = 1_000;

/** 1,000 tasks per owner: past it, a run answers as it would without tasks (a client may poll that many at most). */
export const TASKS_KEPT_MAX = 1_000;

type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

interface Ended {
  readonly status: 'completed' | 'failed' | 'cancelled';
  readonly at: number;
  readonly result?: CallToolResult;
  readonly error?: { readonly code: number; readonly message: string };
}

interface TaskRecord {
  readonly taskId: string;
  readonly view: TaskView;
  readonly createdAt: number;
  readonly expiresAt: number;
  ended?: Ended;
}

/** A task as `tools/call` answers it when it makes one (CreateTaskResult, flat). */
export interface CreatedTask {
  readonly resultType: 'task';
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
}

/** A task as `tasks/get` answers (DetailedTask): the result or error once terminal, what is asked while input is required. */
export interface DetailedTask extends Omit<CreatedTask, 'resultType'> {
  readonly result?: CallToolResult;
  readonly error?: { readonly code: number; readonly message: string };
  readonly inputRequests?: InputRequests;
}

export interface ScriptTasksDeps {
  /** What waits for this owner's client: asked on tasks/get, answered by tasks/update. */
  readonly inputs: InputQueue;
  /** The scripts' longest life (scriptLifetimeMs), for the tasks' ttlMs. */
  readonly scriptLifetimeMs: number;
}

export class ScriptTasks {
  private readonly tasks = new Map<string, TaskRecord>();

  constructor(private readonly deps: ScriptTasksDeps) {}

  /** Whether another task may be made now (TASKS_KEPT_MAX). */
  get hasRoom(): boolean {
    this.forgetExpired();
    return this.tasks.size < TASKS_KEPT_MAX;
  }

  /** Makes the still-running script `view` a task; its ending is taken and kept when it comes. */
  create(view: TaskView): CreatedTask {
    const now = Date.now();
    const record: TaskRecord = {
      taskId: `${view.script.id}.${randomBytes(16).toString('base64url')}`,
      view,
      createdAt: now,
      expiresAt: now + this.ttlMs,
    };
    this.tasks.set(record.taskId, record);
    void view.script.ended.then(() => {
      record.ended = endedAs(view.takeEnding());
    });
    const { result: _result, error: _error, inputRequests: _asked, ...task } = this.describe(record);
    return { resultType: 'task', ...task };
  }

  /** tasks/get: the task as it is now. */
  get(taskId: string): DetailedTask {
    return this.describe(this.find(taskId));
  }

  /**
   * tasks/update: the client's answers to what the task asked, each to its asker. Keys not
   * waiting (answered already, or never asked) are left out: the next tasks/get says what still waits.
   */
  update(taskId: string, responses: Readonly<Record<string, unknown>>): void {
    this.find(taskId);
    const keys = Object.keys(responses).filter((key) => this.deps.inputs.waiting([key]));
    this.deps.inputs.answer(keys, responses);
  }

  /** tasks/cancel: stops the script (a task already ended stays as it ended). */
  cancel(taskId: string): void {
    this.find(taskId).view.script.stop('requested');
  }

  private get ttlMs(): number {
    return this.deps.scriptLifetimeMs + TASK_RESULT_KEPT_MS;
  }

  private find(taskId: string): TaskRecord {
    this.forgetExpired();
    const record = this.tasks.get(taskId);
    if (record === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `no task ${quoteInput(taskId)} of this caller: it never was one, it was another caller's, or it ended over ` +
          `${this.ttlMs} ms ago (its ttlMs). Run the script again if its result is needed.`,
      );
    }
    return record;
  }

  private describe(record: TaskRecord): DetailedTask {
    const { ended, view } = record;
    const asked = ended === undefined ? this.deps.inputs.requests(view.script.id) : {};
    const waiting = Object.keys(asked).length > 0;
    const status: TaskStatus = ended?.status ?? (waiting ? 'input_required' : 'working');
    return {
      taskId: record.taskId,
      status,
      statusMessage: statusLine(view, ended),
      createdAt: new Date(record.createdAt).toISOString(),
      lastUpdatedAt: new Date(ended?.at ?? record.createdAt).toISOString(),
      ttlMs: this.ttlMs,
      pollIntervalMs: TASK_POLL_INTERVAL_MS,
      ...(ended?.result !== undefined ? { result: ended.result } : {}),
      ...(ended?.error !== undefined ? { error: ended.error } : {}),
      ...(waiting ? { inputRequests: asked } : {}),
    };
  }

  private forgetExpired(): void {
    const now = Date.now();
    for (const [taskId, record] of this.tasks) {
      if (record.ended !== undefined && record.expiresAt <= now) this.tasks.delete(taskId);
    }
  }
}

/**
 * A script's ending as a task's terminal status: a script that ended by itself, or was stopped by
 * its lifetime, completed (its error, if any, is the result's `isError`, as SEP-2663 has tool
 * errors); one stopped on request was cancelled; one stopped by the server shutting down failed,
 * since no answer for it could be made.
 */
function endedAs(ret: ScriptReturn): Ended {
  const at = Date.now();
  if (ret.status === 'stopped' && (ret.stopReason === 'requested' || ret.stopReason === 'watch-cancelled')) {
    return { status: 'cancelled', at };
  }
  if (ret.status === 'stopped' && ret.stopReason === 'shutdown') {
    return {
      status: 'failed',
      at,
      error: { code: ProtocolErrorCode.InternalError, message: 'the server shut down while the script ran' },
    };
  }
  return { status: 'completed', at, result: scriptAnswer(ret) };
}

/** `script a1b2c3-4 running 12 s: 14 calls answered, 2 in flight; last notify: {"done":3}` */
function statusLine(view: TaskView, ended: Ended | undefined): string {
  const { calls, latestNotify } = view.script.progress();
  const status: ScriptStatus = view.script.status;
  const seconds = Math.round((Date.now() - view.startedAt) / 1000);
  const state = ended === undefined ? `running ${seconds} s` : status;
  const counts = `${calls.answered} call${calls.answered === 1 ? '' : 's'} answered${calls.inFlight > 0 ? `, ${calls.inFlight} in flight` : ''}`;
  const notify =
    latestNotify === undefined
      ? ''
      : `; last notify: ${latestNotify.length <= 200 ? latestNotify : `${latestNotify.slice(0, 200)}…`}`;
  return `script ${view.script.id} ${state}: ${counts}${notify}`;
}
