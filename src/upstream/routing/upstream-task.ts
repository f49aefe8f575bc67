/**
 * A task an upstream made of a call (task-answer.ts), followed until it ends and turned back into
 * the call's answer: `tasks/get` at the upstream's pollIntervalMs (bounded) until a terminal
 * status; `completed` is the call's result, `failed` its JSON-RPC error, as if the call had
 * answered so. While the task is `input_required`, its `inputRequests` are asked of the caller's
 * client as a round's are (input-rounds.ts) and the answers go back by `tasks/update`. The
 * caller's abort (a script stopped, toolCallTimeoutMs, a client's cancel) sends `tasks/cancel`.
 */
import { ProtocolError, ProtocolErrorCode, type CallToolResult, type InputRequests } from '@modelcontextprotocol/client';
import { UpstreamAnswerError } from '../../support/errors.js';
import { pause } from '../../support/settle.js';
import { checkToolResult } from '../tools/tool-result-check.js';
import { askRound, type RoundAsk, type RoundsOf } from './input-rounds.js';
import type { UpstreamTask } from './task-answer.js';

/** 50 ms: the shortest wait between two `tasks/get` of one task, whatever pollIntervalMs the upstream asks. */
export const UPSTREAM_TASK_POLL_MIN_MS = 50;

/**
 * 2 seconds: the longest wait between two `tasks/get` of one task; an upstream asking for longer
 * (or saying nothing) is polled this often, so a task's end reaches the caller within it.
 */
export const UPSTREAM_TASK_POLL_MAX_MS = 2_000;

/**
 * 10 seconds: how long a `tasks/cancel` sent on the caller's abort is waited for; past it (or on
 * its error) a warning says the upstream's task may run on.
 */
export const UPSTREAM_TASK_CANCEL_WAIT_MS = 10_000;

/** The task requests of the session that made the task, each failing as a call does. */
export interface TaskRequests {
  get(taskId: string, signal: AbortSignal | undefined): Promise<unknown>;
  update(taskId: string, inputResponses: Readonly<Record<string, unknown>>, signal: AbortSignal | undefined): Promise<unknown>;
  /** Sent on the caller's abort; its own failure is the session's to log. */
  cancel(taskId: string): void;
}

/** A `tasks/get` answer's fields this reads. */
interface TaskState {
  readonly status: string;
  readonly pollIntervalMs?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly code?: unknown; readonly message?: unknown; readonly data?: unknown };
  readonly inputRequests?: unknown;
}

/** Follows `task` until it ends: its result, or its error thrown; `signal`'s abort cancels it upstream. */
export async function followUpstreamTask(
  task: UpstreamTask,
  requests: TaskRequests,
  ask: RoundAsk,
  of: RoundsOf,
  signal: AbortSignal | undefined,
): Promise<CallToolResult> {
  try {
    return await pollUntilEnded({ task, requests, ask, of, signal });
  } catch (error) {
    if (signal?.aborted === true) requests.cancel(task.taskId);
    throw error;
  }
}

/** followUpstreamTask's arguments, as the loop reads them. */
interface Following {
  readonly task: UpstreamTask;
  readonly requests: TaskRequests;
  readonly ask: RoundAsk;
  readonly of: RoundsOf;
  readonly signal: AbortSignal | undefined;
}

async function pollUntilEnded({ task, requests, ask, of, signal }: Following): Promise<CallToolResult> {
  // Keys answered since the task last worked: a tasks/get that still lists one came before the
  // upstream took the answer in; once it has worked again, a key it lists is a new question.
  const answered = new Set<string>();
  let wait = pollWait(task.pollIntervalMs);
  for (;;) {
    await pause(wait, signal);
    signal?.throwIfAborted();
    const state = checkState(await requests.get(task.taskId, signal), task.taskId, of);
    wait = pollWait(state.pollIntervalMs);
    switch (state.status) {
      case 'completed':
        return checkToolResult(state.result, of.server, of.tool);
      case 'failed':
        throw failureOf(state, task.taskId, of);
      case 'cancelled':
        throw new UpstreamAnswerError(
          of.server,
          of.tool,
          `its task ${JSON.stringify(task.taskId)} ended cancelled, though nothing cancelled it`,
        );
      case 'working':
        answered.clear();
        break;
      case 'input_required': {
        const fresh = unanswered(state.inputRequests, answered, task.taskId, of);
        if (Object.keys(fresh).length === 0) break;
        const inputResponses = await askRound(fresh, ask, of);
        await requests.update(task.taskId, inputResponses, signal);
        for (const key of Object.keys(fresh)) answered.add(key);
        // Answered: the task moves on now, so its next state is asked for without waiting.
        wait = 0;
        break;
      }
      default:
        throw new UpstreamAnswerError(
          of.server,
          of.tool,
          `tasks/get of its task ${JSON.stringify(task.taskId)} said status ${JSON.stringify(state.status)}, not one of working, input_required, completed, failed, cancelled`,
        );
    }
  }
}

/** The upstream's pollIntervalMs within UPSTREAM_TASK_POLL_MIN_MS and UPSTREAM_TASK_POLL_MAX_MS. */
function pollWait(pollIntervalMs: unknown): number {
  if (typeof pollIntervalMs !== 'number' || !Number.isFinite(pollIntervalMs)) return UPSTREAM_TASK_POLL_MAX_MS;
  return Math.min(UPSTREAM_TASK_POLL_MAX_MS, Math.max(UPSTREAM_TASK_POLL_MIN_MS, pollIntervalMs));
}

function checkState(answer: unknown, taskId: string, of: RoundsOf): TaskState {
  const state = answer as Partial<TaskState> | null;
  if (typeof state !== 'object' || state === null || typeof state.status !== 'string') {
    throw new UpstreamAnswerError(
      of.server,
      of.tool,
      `tasks/get of its task ${JSON.stringify(taskId)} answered with no status`,
      'a task',
    );
  }
  return state as TaskState;
}

/** A failed task's error, as the call's JSON-RPC error would have come. */
function failureOf(state: TaskState, taskId: string, of: RoundsOf): ProtocolError {
  const { code, message, data } = state.error ?? {};
  return new ProtocolError(
    typeof code === 'number' ? code : ProtocolErrorCode.InternalError,
    typeof message === 'string'
      ? message
      : `upstream ${of.server}'s task ${JSON.stringify(taskId)} for ${of.tool} failed, saying no more`,
    data,
  );
}

/** The task's requests not yet answered; what isn't an object of requests fails the call. */
function unanswered(inputRequests: unknown, answered: ReadonlySet<string>, taskId: string, of: RoundsOf): InputRequests {
  if (typeof inputRequests !== 'object' || inputRequests === null || Array.isArray(inputRequests)) {
    throw new UpstreamAnswerError(
      of.server,
      of.tool,
      `tasks/get of its task ${JSON.stringify(taskId)} said input_required with no inputRequests object`,
      'a task',
    );
  }
  const requests = inputRequests as InputRequests;
  return Object.fromEntries(Object.entries(requests).filter(([key]) => !answered.has(key)));
}
