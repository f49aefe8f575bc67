/**
 * `tools/call`, for either protocol revision: `code_execution` goes to the caller's scripts, an
 * exposed tool straight to its upstream, and any other name is refused with what there is.
 */
import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type Progress,
  type RequestId,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { closestName } from '../../common/closest-names.js';
import { ToolRefusedError, SentCallError } from '../support/errors.js';
import { ECHO_MAX_CHARS, quoteInput } from '../support/echo.js';
import type { Log } from '../support/log.js';
import type { Settings } from '../config/settings.js';
import type { CallOrigin } from '../upstream/routing/call-origins.js';
import type { CallContext } from '../upstream/routing/call-routes.js';
import type { UpstreamHub } from '../upstream/hub.js';
import { exposedTools, failedCall } from './exposed-tools.js';
import { CODE_EXECUTION_TOOL } from './code-execution/tool.js';
import type { TraceContext } from '../telemetry/telemetry.js';
import type { TaskWork } from './caller-tasks.js';
import { progressOf } from './progress.js';
import type { ToolCallAnswer } from './tool-answer.js';
import { exposedCallWithInput, type ExposedInputDeps } from './exposed-input.js';
import { passThroughRound } from './exposed-pass-through.js';
import type { ResumeState } from './request-state.js';
import { TASKS_EXTENSION, declaresTasks } from './tasks-extension.js';
import { callWork } from './task-work.js';
import { isUpstreamTask, type UpstreamTask } from '../upstream/routing/task-answer.js';
import { timeoutSignal } from '../support/timeout-signal.js';

export interface ToolCallsDeps {
  readonly hub: UpstreamHub;
  readonly settings: Settings;
  readonly startup: () => Promise<void>;
  readonly log: Log;
  /** Whose call an exposed tool's upstream requests and logs go back to. */
  readonly origin: () => CallOrigin;
  readonly codeExecution: (args: unknown, ctx: ServerContext, trace?: TraceContext) => Promise<ToolCallAnswer>;
  /** Ids of the caller's calls not yet answered, oldest first (a 2025 session relays on the latest's stream). */
  readonly openCalls?: Set<RequestId>;
  /** A 2026-07-28 caller's ways (absent for a 2025 session): its tasks, and its round trips for input. */
  readonly inputRequired?: InputRequiredCalls;
}

/**
 * What a 2026-07-28 caller's exposed calls use: an exposed tool that offers tasks is called as one
 * for a client that declares the extension; one whose upstream speaks 2026-07-28 passes that
 * upstream's own `input_required` rounds through (exposed-pass-through.ts); any other's upstream
 * questions go out as `input_required` of ours (exposed-input.ts). Each call is sent under its
 * key (CallContext.asker), so what its upstream asks meanwhile is that call's (call-origins.ts).
 */
type InputRequiredCalls = ExposedInputDeps;

export async function callTool(
  deps: ToolCallsDeps,
  name: string,
  args: unknown,
  ctx: ServerContext,
  trace?: TraceContext,
): Promise<ToolCallAnswer> {
  if (name === CODE_EXECUTION_TOOL) return whileOpen(deps.openCalls, ctx.mcpReq.id, () => deps.codeExecution(args, ctx, trace));
  // The upstreams list their tools at startup: a first call may come before (no tools/list first).
  await deps.startup();
  const exposed = exposedTools(deps.hub.catalog().tools, deps.settings.expose);
  const tool = exposed.find((candidate) => candidate.name === name);
  if (tool === undefined)
    throw unknownTool(
      name,
      exposed.map((candidate) => candidate.name),
    );
  const onProgress = progressOf(ctx, deps.log);
  const asking = deps.inputRequired;
  if (asking === undefined) {
    return whileOpen(deps.openCalls, ctx.mcpReq.id, () =>
      callExposed(deps, name, args, { signal: ctx.mcpReq.signal, ...(onProgress !== undefined ? { onProgress } : {}) }, trace),
    );
  }
  // A 2026-07-28 caller: the call is made as the caller's own work, so its upstream's questions find their way back.
  // `progress`: the upstream's progress goes out on this request while it is open; a task's request is
  // answered at once, so a task's call has none to go out on.
  const start = (progress: typeof onProgress): TaskWork => {
    const key = asking.tasks.newCallKey();
    return callWork(key, name, (signal) =>
      callExposed(deps, name, args, { signal, asker: key, ...(progress !== undefined ? { onProgress: progress } : {}) }, trace),
    );
  };
  const resumed = ctx.mcpReq.requestState<ResumeState>();
  const takesTasks = declaresTasks(ctx) && asking.tasks.hasRoom;
  // An upstream that makes tasks itself decides, round by round, whether the call becomes one (SEP-2663 with SEP-2322).
  const upstreamTasks = takesTasks && deps.hub.makesTasks(name);
  if (tool.taskSupport !== undefined && resumed === undefined && !upstreamTasks) {
    if (takesTasks) return asking.tasks.create(start(undefined));
    if (tool.taskSupport === 'required') throw needsTasks(name);
  }
  // An upstream in 2026-07-28 asks by input_required itself: its rounds pass through as it sent them.
  if (resumed !== undefined ? 'pass' in resumed : deps.hub.speaksCurrentRevision(name)) {
    const answer = await passThroughRound(asking.codec, 'tools/call', name, ctx, (round) =>
      sendExposed(deps, name, ctx.mcpReq.signal, trace, (signal, context) =>
        deps.hub.callToolRound(name, inputOf(args), upstreamTasks ? { ...round, tasks: true } : round, signal, {
          ...context,
          ...(onProgress !== undefined ? { onProgress } : {}),
        }),
      ),
    );
    return isUpstreamTask(answer)
      ? asking.tasks.create(followWork(deps, asking.tasks.newCallKey(), name, answer, trace))
      : answer;
  }
  return exposedCallWithInput(asking, name, () => start(onProgress), ctx);
}

/**
 * The upstream's task, made ours (caller-tasks.ts): it ends as the upstream's does, within
 * toolCallTimeoutMs; what it asks meanwhile waits in the caller's InputQueue under `key`, for
 * tasks/get to show and tasks/update to answer; tasks/cancel cancels it upstream.
 */
function followWork(
  deps: ToolCallsDeps,
  key: string,
  name: string,
  task: UpstreamTask,
  trace: TraceContext | undefined,
): TaskWork {
  return callWork(key, name, (stop) =>
    sendExposed(deps, name, stop, trace, (signal, context) =>
      deps.hub.followTask(name, task, signal, { ...context, asker: key }),
    ),
  );
}

function needsTasks(name: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `${name} can only be called as a task: declare the ${TASKS_EXTENSION} extension in the request's client capabilities`,
  );
}

function unknownTool(name: string, exposed: readonly string[]): ProtocolError {
  // A name too long to quote whole can't be shown as code either.
  const asCode = name.length <= ECHO_MAX_CHARS ? `tools[${JSON.stringify(name)}](args)` : 'tools[name](args)';
  const offers =
    exposed.length === 0
      ? `one tool, "${CODE_EXECUTION_TOOL}"; call the other tools from a script in it`
      : `"${CODE_EXECUTION_TOOL}" and the tools it exposes (${exposed.join(', ')}); call the other tools from a script in ${CODE_EXECUTION_TOOL}`;
  const close = closestName(name, [CODE_EXECUTION_TOOL, ...exposed]);
  const hint = close !== null ? `; did you mean "${close}"?` : '';
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Unknown tool ${quoteInput(name)}${hint}: this server offers ${offers}, as ${asCode}`,
  );
}

async function whileOpen<T>(openCalls: Set<RequestId> | undefined, id: RequestId, call: () => Promise<T>): Promise<T> {
  openCalls?.add(id);
  try {
    return await call();
  } finally {
    openCalls?.delete(id);
  }
}

/**
 * An exposed tool called directly: sent as a script's call would be (same refusals, same
 * toolCallTimeoutMs), its progress passed on under the client's token, its result as it came.
 */
function callExposed(
  deps: ToolCallsDeps,
  name: string,
  args: unknown,
  call: { readonly signal: AbortSignal; readonly asker?: string; readonly onProgress?: (progress: Progress) => void },
  trace: TraceContext | undefined,
): Promise<CallToolResult> {
  const { onProgress, asker } = call;
  return sendExposed(deps, name, call.signal, trace, (signal, context) =>
    deps.hub.callTool(name, inputOf(args), signal, {
      ...context,
      ...(asker !== undefined ? { asker } : {}),
      ...(onProgress ? { onProgress } : {}),
    }),
  );
}

/** Sends an exposed tool's call within toolCallTimeoutMs; a refusal, a failure after sending or the timeout is a failed call's result. */
async function sendExposed<T>(
  deps: ToolCallsDeps,
  name: string,
  callerSignal: AbortSignal,
  trace: TraceContext | undefined,
  send: (signal: AbortSignal, context: CallContext) => Promise<T>,
): Promise<T | CallToolResult> {
  const { settings } = deps;
  await deps.startup();
  const timeout = timeoutSignal(settings.toolCallTimeoutMs);
  const signal = AbortSignal.any([callerSignal, timeout]);
  try {
    return await send(signal, { origin: deps.origin(), ...(trace !== undefined ? { caller: { trace } } : {}) });
  } catch (error) {
    if (error instanceof ToolRefusedError || error instanceof SentCallError) return failedCall(error);
    if (timeout.aborted && !callerSignal.aborted) {
      return failedCall(
        new Error(
          `TimeoutError: ${name} did not answer within ${settings.toolCallTimeoutMs} ms (toolCallTimeoutMs); it may still take effect`,
        ),
      );
    }
    throw error;
  }
}

/** A call's arguments as an upstream takes them: an object, or none. */
function inputOf(args: unknown): Record<string, unknown> {
  return args !== null && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}
