/**
 * The MCP Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on a 2026-07-28 server:
 * the capability, and `tasks/get`, `tasks/update` and `tasks/cancel` over the caller's tasks
 * (caller-tasks.ts). A request whose client did not declare the extension is refused with
 * `-32021`, naming it; `tasks/list` and `tasks/result`, gone from the extension, stay unknown
 * methods (-32601).
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ClientCapabilities,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { CallerTasks } from './caller-tasks.js';

import { TASKS_EXTENSION } from '../upstream/routing/task-answer.js';

export { TASKS_EXTENSION };

/** The server capability that offers the extension. */
export const TASKS_CAPABILITY = { extensions: { [TASKS_EXTENSION]: {} } };

/** Whether the request's client declared the extension (on the request itself, as 2026-07-28 clients do). */
export function declaresTasks(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined;
  const declared = (envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? ctx.mcpReq._meta?.[CLIENT_CAPABILITIES_META_KEY]) as
    (ClientCapabilities & { extensions?: Record<string, unknown> }) | undefined;
  return declared?.extensions?.[TASKS_EXTENSION] !== undefined;
}

const taskId = z.string({ error: 'taskId must be the task id a tools/call answered with (a string)' });
const TaskRef = z.looseObject({ taskId });
/** The methods' params and results, as the SDK's setRequestHandler takes them for a method it does not know. */
const TASK_METHOD = { params: TaskRef, result: z.looseObject({}) };

/** Registers the three methods on `server`; `tasksOf` finds the caller's tasks (undefined once it is shutting down). */
export function serveTasks(server: Server, tasksOf: (ctx: ServerContext) => CallerTasks | undefined): void {
  const withTasks = (ctx: ServerContext): CallerTasks => {
    if (!declaresTasks(ctx)) {
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        `${ctx.mcpReq.method} needs the ${TASKS_EXTENSION} extension: declare it in the request's client capabilities (extensions)`,
      );
    }
    const tasks = tasksOf(ctx);
    if (tasks === undefined) throw new ProtocolError(ProtocolErrorCode.InternalError, 'the server is shutting down');
    return tasks;
  };
  server.setRequestHandler('tasks/get', TASK_METHOD, (params, ctx) => ({ ...withTasks(ctx).get(params.taskId) }));
  // The SDK lifts `inputResponses` off the params, as on a retried tools/call (ctx.mcpReq.inputResponses).
  server.setRequestHandler('tasks/update', TASK_METHOD, (params, ctx) => {
    const tasks = withTasks(ctx);
    const responses = ctx.mcpReq.inputResponses;
    if (responses === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'tasks/update needs inputResponses: an object keyed by the ids tasks/get gave in inputRequests',
      );
    }
    tasks.update(params.taskId, responses);
    return {};
  });
  server.setRequestHandler('tasks/cancel', TASK_METHOD, (params, ctx) => {
    withTasks(ctx).cancel(params.taskId);
    return {};
  });
}
