/**
 * `tools/call`, for either protocol revision: `code_execution` goes to the caller's scripts, an
 * exposed tool straight to its upstream, and any other name is refused with what there is.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type InputRequiredResult,
  type RequestId,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { closestName } from '../../common/closest-names.js';
import { ToolRefusedError, SentCallError } from '../support/errors.js';
import { ECHO_MAX_CHARS, quoteInput } from '../support/echo.js';
import { logFailure, type Log } from '../support/log.js';
import type { Settings } from '../config/settings.js';
import type { CallOrigin } from '../upstream/call-origins.js';
import type { UpstreamHub } from '../upstream/hub.js';
import { exposedTools, failedCall } from './exposed-tools.js';
import { CODE_EXECUTION_TOOL } from './code-execution-tool.js';
import type { TraceContext } from '../telemetry/telemetry.js';
import type { CreatedTask } from './script-tasks.js';

/** What a `tools/call` answers: a result, a request for the client's input (2026-07-28), or a task (script-tasks.ts). */
export type ToolCallAnswer = CallToolResult | InputRequiredResult | CreatedTask;

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
}

export function callTool(
  deps: ToolCallsDeps,
  name: string,
  args: unknown,
  ctx: ServerContext,
  trace?: TraceContext,
): Promise<ToolCallAnswer> {
  const exposed = exposedTools(deps.hub.catalog().tools, deps.settings.expose).map((tool) => tool.name);
  if (name !== CODE_EXECUTION_TOOL && !exposed.includes(name)) throw unknownTool(name, exposed);
  return whileOpen(deps.openCalls, ctx.mcpReq.id, () =>
    name === CODE_EXECUTION_TOOL ? deps.codeExecution(args, ctx, trace) : callExposed(deps, name, args, ctx, trace),
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
async function callExposed(
  deps: ToolCallsDeps,
  name: string,
  args: unknown,
  ctx: ServerContext,
  trace: TraceContext | undefined,
): Promise<CallToolResult> {
  const { hub, settings, log } = deps;
  await deps.startup();
  const progressToken = ctx.mcpReq._meta?.progressToken;
  const onProgress =
    progressToken === undefined
      ? undefined
      : (progress: { progress: number; total?: number; message?: string }) =>
          void ctx.mcpReq
            .notify({ method: 'notifications/progress', params: { ...progress, progressToken } })
            .catch(logFailure('a progress notification to the client', log));
  const timeout = AbortSignal.timeout(settings.toolCallTimeoutMs);
  const signal = AbortSignal.any([ctx.mcpReq.signal, timeout]);
  try {
    const input = args !== null && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
    return await hub.callTool(name, input, signal, {
      origin: deps.origin(),
      ...(onProgress ? { onProgress } : {}),
      ...(trace !== undefined ? { caller: { trace } } : {}),
    });
  } catch (error) {
    if (error instanceof ToolRefusedError || error instanceof SentCallError) return failedCall(error);
    if (timeout.aborted && !ctx.mcpReq.signal.aborted) {
      return failedCall(
        new Error(
          `TimeoutError: ${name} did not answer within ${settings.toolCallTimeoutMs} ms (toolCallTimeoutMs); it may still take effect`,
        ),
      );
    }
    throw error;
  }
}

/**
 * When the client's call carries a progress token: a sender of `notifications/progress` for it,
 * `progress` counting the messages so it only ever increases, as MCP requires.
 */
export function progressSender(ctx: ServerContext): ((message: string) => void) | undefined {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  let progress = 0;
  return (message) => {
    if (ctx.mcpReq.signal.aborted) return;
    progress += 1;
    ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken, progress, message } })
      .catch(logFailure('a progress notification to the client'));
  };
}
