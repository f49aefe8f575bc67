/**
 * One `tools/call` of code_execution, for either protocol revision: the arguments parsed into a
 * command, the command carried out by the caller's scripts, the reply rendered as the tool's answer.
 *
 * A 2026-07-28 caller takes no server-to-client requests (SEP-2322): when an upstream asks for
 * something (elicitation, sampling, roots) during a script's call, the call watching the script
 * answers `input_required` with the request, the script waits meanwhile, and the client's retry of
 * the same call brings the answer back (`inputResponses`) with the `requestState` we minted
 * (request-state.ts): the retry then watches that script again, whatever else its arguments say.
 * A client that declares the Tasks extension gets a run still going as a task instead.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  inputRequired,
  type CallToolResult,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { OwnerScripts, ScriptCommand, ScriptReply, WatchContext } from '../../scripts/owner-scripts.js';
import type { TraceContext } from '../../telemetry/telemetry.js';
import type { ScopeTokens } from '../../tokenize/tokenizer.js';
import type { InputQueue } from '../input-queue.js';
import { progressSender } from '../progress.js';
import type { ToolCallAnswer } from '../tool-answer.js';
import type { CallerTasks } from '../caller-tasks.js';
import { declaresTasks } from '../tasks-extension.js';
import { foreignState, type ResumeState } from '../request-state.js';
import { parseCommand } from './input.js';
import { refusalAnswer, replyAnswer } from './answer.js';
import { scriptWork } from './script-task.js';

export interface CodeExecutionDeps {
  readonly scripts: OwnerScripts;
  /** The caller's tokens, when tokenize is on: a run's code has them put back before it runs. */
  readonly tokens?: Pick<ScopeTokens, 'restoreCode'>;
  /** The cap on a call's yield_ms (the server's maxYieldMs). */
  readonly maxYieldMs: number;
  /** A 2026-07-28 caller's ways back to its client; absent for a 2025 one, which is asked by requests of ours. */
  readonly inputRequired?: InputRequiredWays;
}

/** How a 2026-07-28 caller is asked for input, and takes a long run as a task. */
export interface InputRequiredWays {
  readonly inputs: InputQueue;
  readonly codec: RequestStateCodec<ResumeState>;
  /** The owner's tasks: a client that declares the Tasks extension gets a still-running script's run as one. */
  readonly tasks?: CallerTasks;
  /**
   * Set behind a load balancer (--instance-id): a `run` asked for input before its first answer
   * answers `running` with the script's id instead, so that the question comes on a `wait`, which
   * routes to this instance by its script (`Mcp-Param-Script`); a retry of the `run` would not.
   */
  readonly routed?: boolean;
}

export async function callCodeExecution(
  deps: CodeExecutionDeps,
  args: unknown,
  ctx: ServerContext,
  trace?: TraceContext,
): Promise<ToolCallAnswer> {
  const ways = deps.inputRequired;
  const resumed = ways === undefined ? undefined : ctx.mcpReq.requestState<ResumeState>();
  const onProgress = progressSender(ctx);
  const watch: WatchContext = {
    signal: ctx.mcpReq.signal,
    ...(onProgress !== undefined ? { onProgress } : {}),
    ...(trace !== undefined ? { trace } : {}),
  };
  if (ways === undefined) return answerArguments(deps.scripts, args ?? {}, deps.maxYieldMs, watch, deps.tokens);
  let command: ScriptCommand;
  if (resumed !== undefined) command = answerResumed(ways.inputs, resumed, ctx);
  else {
    const parsed = parseCommand(args ?? {}, deps.maxYieldMs);
    if ('refused' in parsed) return refusalAnswer(parsed.refused);
    command = deps.tokens === undefined ? parsed.command : await restoreTokens(parsed.command, deps.tokens);
  }
  return watchAskingInput(deps.scripts, ways, command, watch, ctx, resumed !== undefined);
}

/** A call's arguments answered as a 2025 client's are: parsed, carried out, rendered; `watch` has no interrupt. */
export async function answerArguments(
  scripts: OwnerScripts,
  args: unknown,
  maxYieldMs: number,
  watch: Omit<WatchContext, 'interrupt' | 'handOver'>,
  tokens?: CodeExecutionDeps['tokens'],
): Promise<CallToolResult> {
  const parsed = parseCommand(args, maxYieldMs);
  if ('refused' in parsed) return refusalAnswer(parsed.refused);
  const command = tokens === undefined ? parsed.command : await restoreTokens(parsed.command, tokens);
  return replyAnswer(settled(await scripts.command(command, watch)));
}

/**
 * A run whose code has the caller's tokens put back, each in its string literal (a token this
 * caller doesn't know stays as written: the answer's line on it is the transport's,
 * tokens/tokenizing-transport.ts); the code as sent is kept for the script's span. Called only
 * with tokenize on: off, a command goes on in the turn it was parsed.
 */
async function restoreTokens(command: ScriptCommand, tokens: NonNullable<CodeExecutionDeps['tokens']>): Promise<ScriptCommand> {
  if (command.action !== 'run') return command;
  const { value } = await tokens.restoreCode(command.code);
  return value === command.code ? command : { ...command, code: value, sentCode: command.code };
}

/** The retry's answers go to the requests its requestState names; the retry then waits on that script. */
function answerResumed(inputs: InputQueue, resumed: ResumeState, ctx: ServerContext): ScriptCommand {
  if (!('script' in resumed)) throw foreignState(resumed);
  if (!inputs.waiting(resumed.keys)) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'requestState names requests already answered or no longer waiting (a retry sent twice, or the upstream gave up); ' +
        `wait on the script instead: {"action": "wait", "script": "${resumed.script}"}`,
    );
  }
  inputs.answer(resumed.keys, ctx.mcpReq.inputResponses ?? {}, resumed.script);
  return { action: 'wait', script: resumed.script, ...(resumed.yieldMs !== undefined ? { yieldMs: resumed.yieldMs } : {}) };
}

/**
 * Carries out `command` for a 2026-07-28 caller: a watch ends early when an upstream asks this
 * caller something for the script watched (or for no script in particular), and answers
 * `input_required` with what was asked; a run handed over becomes a task.
 */
async function watchAskingInput(
  scripts: OwnerScripts,
  { inputs, codec, tasks, routed }: InputRequiredWays,
  first: ScriptCommand,
  base: WatchContext,
  ctx: ServerContext,
  resumed: boolean,
): Promise<ToolCallAnswer> {
  let command = first;
  // The script watched: known for a wait, told by the run that starts one. What is asked for
  // another script of the owner is that script's watch's to answer.
  let watched = 'script' in command ? command.script : undefined;
  let interrupt = new AbortController();
  const stopListening = inputs.onAsked((script) => {
    if (script === undefined || watched === undefined || script === watched) interrupt.abort();
  });
  if (inputs.asksFor(watched ?? NO_SCRIPT_YET)) interrupt.abort();
  // A run is handed over as a task when the client takes tasks; a wait or stop answers as ever.
  const asTask = tasks !== undefined && !resumed && command.action === 'run' && declaresTasks(ctx) && tasks.hasRoom;
  let watch: WatchContext = {
    ...base,
    interrupt: interrupt.signal,
    ...(asTask ? { handOver: true } : {}),
    onStarted: (id) => {
      watched = id;
    },
  };
  try {
    for (;;) {
      const reply = await scripts.command(command, watch);
      if (reply.kind !== 'interrupted') return replyAnswer(reply);
      const view = asTask ? scripts.taskView(reply.script) : undefined;
      if (view !== undefined) return tasks!.create(scriptWork(view));
      if (routed === true && !resumed && command.action === 'run') {
        return replyAnswer(settled(await scripts.command({ action: 'wait', script: reply.script, yieldMs: 0 }, base)));
      }
      const requests = inputs.requests(reply.script);
      const keys = Object.keys(requests);
      const yieldMs = 'yieldMs' in command ? command.yieldMs : undefined;
      if (keys.length > 0) {
        const state: ResumeState = { script: reply.script, keys, ...(yieldMs !== undefined ? { yieldMs } : {}) };
        return inputRequired({ inputRequests: requests, requestState: await codec.mint(state, ctx) });
      }
      // The upstream withdrew its request before we answered: watch on.
      interrupt = new AbortController();
      watch = { ...watch, interrupt: interrupt.signal };
      command = { action: 'wait', script: reply.script, ...(yieldMs !== undefined ? { yieldMs } : {}) };
    }
  } finally {
    stopListening();
  }
}

/** A reply to a watch that nothing interrupts (no `interrupt`, no `handOver`). */
function settled(reply: ScriptReply): Exclude<ScriptReply, { kind: 'interrupted' }> {
  if (reply.kind === 'interrupted')
    throw new Error(`the watch of ${reply.script} was interrupted, and nothing could interrupt it`);
  return reply;
}

/** A script id no script has: what is asked for none in particular concerns it, what is asked for another does not. */
const NO_SCRIPT_YET = '';
