/**
 * An upstream's task as the answer to a tool call (the Tasks extension, SEP-2663): a 2026-07-28
 * upstream that declares the extension may answer a call that declared it with a CreateTaskResult
 * (`resultType: "task"`, `taskId`, `status`, `pollIntervalMs`), which upstream-task.ts follows.
 * The SDK 2.4 client refuses any `resultType` but `complete` and `input_required`
 * (UNSUPPORTED_RESULT_TYPE, with the task's id lost) and a tools/call result without `content`,
 * so such an answer is carried past it: read off the transport before the SDK decodes it, it
 * reaches the call as a `complete` result holding the task under UPSTREAM_TASK_KEY.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Where a carried task sits in the result the SDK hands back (never a key an upstream sends: it is ours). */
const UPSTREAM_TASK_KEY = 'codemode/upstream-task';

/** A task an upstream made of a call, as its CreateTaskResult said. */
export interface UpstreamTask {
  readonly resultType: 'task';
  readonly taskId: string;
  readonly status: string;
  /** How often the upstream asks to be polled; absent when it said nothing (upstream-task.ts bounds it). */
  readonly pollIntervalMs?: number;
}

/** Call after the client connected (it owns `onmessage` from then on): task answers are carried from then on. */
export function carryTaskAnswers(transport: Transport): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => deliver?.(carried(message), extra);
}

/** A response whose result is a task, as a `complete` result the SDK lets through; any other message as it came. */
function carried(message: JSONRPCMessage): JSONRPCMessage {
  if (!('result' in message)) return message;
  const result = message.result as { resultType?: unknown } | undefined;
  if (result?.resultType !== 'task') return message;
  return { ...message, result: { resultType: 'complete', content: [], [UPSTREAM_TASK_KEY]: result } };
}

/**
 * The task an answer carried: undefined for any other answer, a string saying what is wrong for
 * a task answer that isn't a CreateTaskResult.
 */
export function carriedTaskOf(answer: unknown): UpstreamTask | string | undefined {
  const task = (answer as Record<string, unknown> | undefined)?.[UPSTREAM_TASK_KEY] as Record<string, unknown> | undefined;
  if (task === undefined) return undefined;
  const { taskId, status, pollIntervalMs } = task;
  if (typeof taskId !== 'string' || taskId === '') return 'its task answer (resultType "task") has no taskId string';
  if (typeof status !== 'string') return `its task answer (task ${JSON.stringify(taskId)}) has no status string`;
  return {
    resultType: 'task',
    taskId,
    status,
    ...(typeof pollIntervalMs === 'number' && Number.isFinite(pollIntervalMs) ? { pollIntervalMs } : {}),
  };
}

export function isUpstreamTask(answer: unknown): answer is UpstreamTask {
  return (answer as { resultType?: unknown } | undefined)?.resultType === 'task';
}
