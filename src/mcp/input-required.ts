/**
 * `code_execution` for a 2026-07-28 client, which takes no server-to-client requests (SEP-2322):
 * when an upstream asks for something (elicitation, sampling, roots) during a script's call, the
 * call watching the script answers `input_required` with the request, the script waits meanwhile,
 * and the client's retry of the same call brings the answer back (`inputResponses`) with the
 * `requestState` we minted: signed, bound to the caller, and naming the script and the requests.
 * The retry then watches that script again, whatever else its arguments say.
 */
import { randomBytes } from 'node:crypto';
import {
  ProtocolError,
  ProtocolErrorCode,
  createRequestStateCodec,
  inputRequired,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { isInterrupted, type SessionScripts, type WatchContext } from '../scripts/session-scripts.js';
import type { InputQueue } from './input-queue.js';
import type { TraceContext } from '../telemetry/telemetry.js';
import { progressSender } from './progress.js';
import type { ToolCallAnswer } from './tool-answer.js';
import type { CallerTasks } from './caller-tasks.js';
import { declaresTasks } from './tasks-extension.js';
import { scriptWork } from './task-work.js';

/**
 * What a `requestState` of ours carries: the requests the retry answers, and what it then waits
 * on: a script (code_execution), or an exposed tool's call still out (exposed-input.ts); or, for
 * an exposed tool or prompt whose upstream asked by `input_required` itself, its name and the
 * upstream's own requestState to send back with the answers (exposed-pass-through.ts).
 */
export type ResumeState =
  | { readonly script: string; readonly keys: readonly string[]; readonly yieldMs?: number }
  | { readonly call: string; readonly tool: string; readonly keys: readonly string[] }
  | { readonly pass: 'tools/call' | 'prompts/get'; readonly name: string; readonly upstream?: string };

/**
 * 10 minutes: how long a minted `requestState` is honoured. A person answering an elicitation
 * takes minutes; an upstream's own timeout on its request is the tighter bound in practice.
 */
export const REQUEST_STATE_TTL_S = 600;

/**
 * The codec of this server process: its key is made at start, so only the instance that asked
 * can read the answer (the script waits in that instance anyway). `principal` names the caller a
 * state is bound to, so another principal can't use it.
 */
export function requestStateCodec(principal: (ctx: ServerContext) => string): RequestStateCodec<ResumeState> {
  return createRequestStateCodec<ResumeState>({
    key: randomBytes(32),
    ttlSeconds: REQUEST_STATE_TTL_S,
    bind: (ctx) => `${ctx.mcpReq.method}\0${principal(ctx)}`,
  });
}

export interface InputWatchDeps {
  readonly scripts: SessionScripts;
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

export async function codeExecutionWithInput(
  { scripts, inputs, codec, tasks, routed }: InputWatchDeps,
  args: unknown,
  ctx: ServerContext,
  trace?: TraceContext,
): Promise<ToolCallAnswer> {
  const resumed = ctx.mcpReq.requestState<ResumeState>();
  let input = args ?? {};
  if (resumed !== undefined) {
    if (!('script' in resumed)) throw foreignState(resumed);
    if (!inputs.waiting(resumed.keys)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'requestState names requests already answered or no longer waiting (a retry sent twice, or the upstream gave up); ' +
          `wait on the script instead: {"action": "wait", "script": "${resumed.script}"}`,
      );
    }
    inputs.answer(resumed.keys, ctx.mcpReq.inputResponses ?? {});
    input = { action: 'wait', script: resumed.script, ...(resumed.yieldMs !== undefined ? { yield_ms: resumed.yieldMs } : {}) };
  }
  // The script watched: known for a wait, told by the run that starts one. What is asked for
  // another script of the owner is that script's watch's to answer.
  let watched = scriptOf(input);
  let interrupt = new AbortController();
  const stopListening = inputs.onAsked((script) => {
    if (script === undefined || watched === undefined || script === watched) interrupt.abort();
  });
  if (inputs.asksFor(watched ?? NO_SCRIPT_YET)) interrupt.abort();
  const onProgress = progressSender(ctx);
  // A run is handed over as a task when the client takes tasks; a wait or stop answers as ever.
  const asTask = tasks !== undefined && resumed === undefined && isRun(input) && declaresTasks(ctx) && tasks.hasRoom;
  let watch: WatchContext = {
    signal: ctx.mcpReq.signal,
    interrupt: interrupt.signal,
    ...(onProgress !== undefined ? { onProgress } : {}),
    ...(trace !== undefined ? { trace } : {}),
    ...(asTask ? { handOver: true } : {}),
    onStarted: (id) => {
      watched = id;
    },
  };
  try {
    for (;;) {
      const answer = await scripts.handle(input, watch);
      if (!isInterrupted(answer)) return answer;
      const view = asTask ? scripts.taskView(answer.interrupted) : undefined;
      if (view !== undefined) return tasks!.create(scriptWork(view));
      if (routed === true && resumed === undefined && isRun(input)) {
        return scripts.handle({ action: 'wait', script: answer.interrupted, yield_ms: 0 }, { signal: ctx.mcpReq.signal });
      }
      const requests = inputs.requests(answer.interrupted);
      const keys = Object.keys(requests);
      const yieldMs = yieldOf(input);
      if (keys.length > 0) {
        const state: ResumeState = { script: answer.interrupted, keys, ...(yieldMs !== undefined ? { yieldMs } : {}) };
        return inputRequired({ inputRequests: requests, requestState: await codec.mint(state, ctx) });
      }
      // The upstream withdrew its request before we answered: watch on.
      interrupt = new AbortController();
      watch = { ...watch, interrupt: interrupt.signal };
      input = { action: 'wait', script: answer.interrupted, ...(yieldMs !== undefined ? { yield_ms: yieldMs } : {}) };
    }
  } finally {
    stopListening();
  }
}

/** A retry whose requestState was minted for another tool's call (or another prompt's get). */
export function foreignState(state: ResumeState): ProtocolError {
  const subject =
    'script' in state
      ? 'a call of code_execution'
      : 'call' in state
        ? `a call of ${state.tool}`
        : state.pass === 'prompts/get'
          ? `prompts/get of ${state.name}`
          : `a call of ${state.name}`;
  const retry = 'pass' in state && state.pass === 'prompts/get' ? "that prompt's retry" : "that tool's retry";
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `requestState was given for ${subject}: send it again with ${retry}, not another's`,
  );
}

/** A script id no script has: what is asked for none in particular concerns it, what is asked for another does not. */
const NO_SCRIPT_YET = '';

/** The script a wait or stop names. */
function scriptOf(input: unknown): string | undefined {
  const script = (input as { script?: unknown }).script;
  return typeof script === 'string' ? script : undefined;
}

/** Whether the input starts a script (as parseInput reads it: `code` with no action, or action "run"). */
function isRun(input: unknown): boolean {
  if (typeof input !== 'object' || input === null) return false;
  const { action, code } = input as { action?: unknown; code?: unknown };
  return action === 'run' || (action === undefined && code !== undefined);
}

function yieldOf(input: unknown): number | undefined {
  const given = (input as { yield_ms?: unknown }).yield_ms;
  return typeof given === 'number' ? given : undefined;
}
