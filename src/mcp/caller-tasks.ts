/**
 * One caller's MCP tasks (the Tasks extension, SEP-2663), for a 2026-07-28 client that declares
 * it: a script whose `run` outlived its yield, or an exposed tool's call that may be a task
 * (task-work.ts makes either a TaskWork). `tasks/get` tells its status and, once it has ended,
 * its result; `tasks/update` answers what waits for the client (an upstream's elicitation,
 * sampling or roots request); `tasks/cancel` stops it. A task id is its work's key (a script's id)
 * and a random part, so it routes like the script (the instance prefix) and can't be guessed; it
 * is found only among its caller's tasks, so another principal's `tasks/get` is answered as unknown.
 */
import { randomBytes } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode, type CallToolResult, type InputRequests } from '@modelcontextprotocol/server';
import { quoteInput, revealControls } from '../support/echo.js';
import type { InputQueue } from './input-queue.js';
import { foreignInstance, scriptIdPrefix } from '../scripts/script-ids.js';

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

/** How a task's work ended: its terminal status, with the result or the error. */
export interface Ended {
  readonly status: 'completed' | 'failed' | 'cancelled';
  readonly result?: CallToolResult;
  readonly error?: { readonly code: number; readonly message: string };
}

/** What a task runs (task-work.ts). */
export interface TaskWork {
  /** What its task id starts with, and whose an upstream's request is (InputQueue): a script's id, or the call's. */
  readonly key: string;
  /** Settles, never rejecting, with how it ended. */
  readonly ended: Promise<Ended>;
  /** One line on how far it has got (`statusMessage`). */
  statusLine(ended: boolean): string;
  /** Stops it: it ends `cancelled` (or as it was ending anyway). */
  cancel(): void;
}

interface TaskRecord {
  readonly taskId: string;
  readonly work: TaskWork;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** How it ended; its result's JSON bytes counted against taskResultsMaxBytes while kept. */
  ended?: Ended & { readonly at: number; readonly bytes: number };
  /** The status and the requests waiting as last told, and since when: `lastUpdatedAt` moves when they change. */
  told: { readonly state: string; readonly since: number };
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

export interface CallerTasksDeps {
  /** What waits for this owner's client: asked on tasks/get, answered by tasks/update. */
  readonly inputs: InputQueue;
  /** The scripts' longest life (scriptLifetimeMs), for the tasks' ttlMs. */
  readonly scriptLifetimeMs: number;
  /** taskResultsMaxBytes: the ended tasks' results kept, as JSON bytes; past it the oldest are dropped. */
  readonly resultsMaxBytes: number;
  /** The server's --instance-id, which starts every task id (src/scripts/script-ids.ts). */
  readonly instance?: string;
}

export class CallerTasks {
  private readonly tasks = new Map<string, TaskRecord>();
  /** Exposed calls between `input_required` rounds (exposed-input.ts), by key, till the retry or their time is up. */
  private readonly held = new Map<string, { readonly work: TaskWork; readonly timer: NodeJS.Timeout }>();
  private calls = 0;
  /** The JSON bytes of the results kept (TaskRecord.ended.bytes). */
  private resultBytes = 0;

  constructor(private readonly deps: CallerTasksDeps) {}

  /** Whether another task may be made now (TASKS_KEPT_MAX). */
  get hasRoom(): boolean {
    this.forgetExpired();
    return this.tasks.size < TASKS_KEPT_MAX;
  }

  /** A key for an exposed tool's call made as a task: `[<instance>.]<process tag>-call<n>`, routed as script ids are. */
  newCallKey(): string {
    return `${scriptIdPrefix(this.deps.instance)}call${++this.calls}`;
  }

  /**
   * Keeps an exposed call that asked the client something, for the retry that answers it; after
   * `forMs` with no retry, it is cancelled (the question went unanswered).
   */
  hold(work: TaskWork, forMs: number): void {
    const timer = setTimeout(() => {
      this.held.delete(work.key);
      work.cancel();
    }, forMs);
    timer.unref();
    this.held.set(work.key, { work, timer });
  }

  /** The held call `key`, taken (a retry sent twice finds it gone). */
  takeHeld(key: string): TaskWork | undefined {
    const held = this.held.get(key);
    if (held === undefined) return undefined;
    clearTimeout(held.timer);
    this.held.delete(key);
    return held.work;
  }

  /** Makes `work`, still running, a task; its ending is kept when it comes. */
  create(work: TaskWork): CreatedTask {
    const now = Date.now();
    const record: TaskRecord = {
      taskId: `${work.key}.${randomBytes(16).toString('base64url')}`,
      work,
      createdAt: now,
      expiresAt: now + this.ttlMs,
      told: { state: 'working', since: now },
    };
    this.tasks.set(record.taskId, record);
    void work.ended.then((ended) => {
      const bytes = ended.result === undefined ? 0 : Buffer.byteLength(JSON.stringify(ended.result), 'utf8');
      record.ended = { ...ended, at: Date.now(), bytes };
      this.resultBytes += bytes;
      this.dropOldestResults();
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
   * waiting (answered already, or never asked) and keys another task asked are left out: the next
   * tasks/get says what still waits.
   */
  update(taskId: string, responses: Readonly<Record<string, unknown>>): void {
    const { work } = this.find(taskId);
    const keys = Object.keys(responses).filter((key) => this.deps.inputs.waiting([key]));
    this.deps.inputs.answer(keys, responses, work.key);
  }

  /** tasks/cancel: stops its work (a task already ended stays as it ended). */
  cancel(taskId: string): void {
    this.find(taskId).work.cancel();
  }

  private get ttlMs(): number {
    return this.deps.scriptLifetimeMs + TASK_RESULT_KEPT_MS;
  }

  private find(taskId: string): TaskRecord {
    this.forgetExpired();
    const record = this.tasks.get(taskId);
    const gone = record === undefined ? foreignInstance(taskId, this.deps.instance) : undefined;
    if (gone !== undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, gone.replace(/^script /, 'task '));
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
    const { ended, work } = record;
    const asked = ended === undefined ? this.deps.inputs.requests(work.key) : {};
    const waiting = Object.keys(asked).length > 0;
    const status: TaskStatus = ended?.status ?? (waiting ? 'input_required' : 'working');
    const state = `${status} ${Object.keys(asked).join(' ')}`;
    if (state !== record.told.state) record.told = { state, since: ended?.at ?? Date.now() };
    const line = work.statusLine(ended !== undefined);
    return {
      taskId: record.taskId,
      status,
      statusMessage: waiting ? `${line}; waiting for the client: ${describeAsked(asked)}` : line,
      createdAt: new Date(record.createdAt).toISOString(),
      lastUpdatedAt: new Date(record.told.since).toISOString(),
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
      if (record.ended === undefined || record.expiresAt > now) continue;
      this.resultBytes -= record.ended.bytes;
      this.tasks.delete(taskId);
    }
  }

  /**
   * Past taskResultsMaxBytes, the oldest ended tasks' results are dropped: each such task stays,
   * failed, its error saying what became of its result (the newest result is kept whatever its size).
   */
  private dropOldestResults(): void {
    const ended = [...this.tasks.values()]
      .filter((record) => record.ended !== undefined && record.ended.bytes > 0)
      .sort((a, b) => a.ended!.at - b.ended!.at);
    for (const record of ended.slice(0, -1)) {
      if (this.resultBytes <= this.deps.resultsMaxBytes) return;
      const { bytes } = record.ended!;
      this.resultBytes -= bytes;
      record.ended = {
        status: 'failed',
        at: record.ended!.at,
        bytes: 0,
        error: {
          code: ProtocolErrorCode.InternalError,
          message:
            `task ${record.taskId} ended, but its result (${bytes} bytes) was dropped to keep newer ones: this ` +
            `caller's ended tasks' results passed the server's taskResultsMaxBytes (${this.deps.resultsMaxBytes} bytes). ` +
            'Run the script again if its result is needed.',
        },
      };
    }
  }
}

/** `elicitation/create from the upstream ("Name?")`, one per request, for a status line. */
function describeAsked(asked: InputRequests): string {
  return Object.values(asked)
    .map((request) => {
      const message = (request.params as { message?: unknown } | undefined)?.message;
      // What the upstream wrote, read by a person: its control and bidi characters shown as escapes.
      return typeof message === 'string'
        ? `${request.method} ("${revealControls(message.length <= 80 ? message : `${message.slice(0, 80)}…`)}")`
        : request.method;
    })
    .join(', ');
}
