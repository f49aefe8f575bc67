import type { CallToolResult, Progress } from '@modelcontextprotocol/server';
import type { CatalogTool } from '../catalog/types.js';
import { Script } from '../script-host/script.js';
import type { ResourceCaller, ScriptReturn, SkillsCaller, StateCaller, ToolResult } from '../script-host/types.js';
import type { Settings } from '../config/settings.js';
import { refusalAnswer, scriptAnswer, textAnswer } from './answer.js';
import type { ChildSource, Supplied } from './child-pool.js';
import { quoteInput } from '../support/echo.js';
import { parseInput } from './input.js';
import { ProgressThrottle } from './progress-throttle.js';
import { renderList, type ListedScript } from './list.js';
import { entriesWithSkills, toolEntries, type SkillEntrySource } from './tool-entries.js';
import { foreignInstance, fromEarlierRun, scriptIdPrefix } from './script-ids.js';
import { activeTelemetry, type TraceContext } from '../telemetry/telemetry.js';
import type { CallCaller } from '../telemetry/observe-call.js';
import type { ApprovalGate } from '../approvals/approval-gate.js';
import { ApprovalTally, sendApproved } from './approved-calls.js';
import { approveThrough, type ScriptFetch } from './script-fetch.js';

export interface WatchContext {
  /** Aborts when the client cancels its call: the watch is released. */
  readonly signal: AbortSignal;
  /** Present when the client's call carried a progress token. */
  readonly onProgress?: (message: string) => void;
  /**
   * Aborts when the watching call must answer before the script ends or yields: a 2026-07-28
   * client is asked for input (`input_required`). The watch then takes nothing; what is new waits
   * for the next watch, which the client's retry makes.
   */
  readonly interrupt?: AbortSignal;
  /** The client request's span: a script it runs is its child. */
  readonly trace?: TraceContext;
  /**
   * The client takes a script still running as an MCP task (caller-tasks.ts): a watch that ends
   * with the script running takes nothing either, and answers `Interrupted`.
   */
  readonly handOver?: boolean;
  /** Told the id of the script a run starts, before the watch begins. */
  readonly onStarted?: (id: string) => void;
}

/** A watch that `WatchContext.interrupt` ended, or one handed over: the script it watched, still running. */
export interface Interrupted {
  readonly interrupted: string;
}

export function isInterrupted(answer: CallToolResult | Interrupted): answer is Interrupted {
  return typeof (answer as Partial<Interrupted>).interrupted === 'string';
}

/** A tool call with a listener for the upstream's progress notifications on it. */
export type ProgressingToolCaller = (
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
  onProgress: (progress: Progress) => void,
  caller: CallCaller,
) => Promise<ToolResult>;

export interface SessionScriptsDeps {
  readonly supply: ChildSource;
  readonly catalog: () => readonly CatalogTool[];
  /** Name prefixes of upstreams that have not listed their tools yet. */
  readonly unlisted: () => readonly string[];
  readonly callTool: ProgressingToolCaller;
  /** The scripts' `resources` calls; absent, each is refused (RESOURCE_UNKNOWN). */
  readonly callResource?: ResourceCaller;
  /** The scripts' `store`/`load` calls, bound to the session's principal; absent, each is refused (STATE_OFF). */
  readonly callState?: StateCaller;
  /** The scripts' `skills` calls, saving as the session may; absent, each is refused (SKILLS_OFF). */
  readonly callSkills?: SkillsCaller;
  /** The scripts' fetch() calls, made by the server's fetcher; absent, each is refused (FETCH_ORIGIN). */
  readonly callFetch?: ScriptFetch;
  /** The saved skills as last read, for searchTools to find beside the tools; none when absent. */
  readonly savedSkills?: () => readonly SkillEntrySource[];
  readonly settings: Settings;
  /**
   * Whose scripts these are, in messages: `this session` (a connection, a 2025 HTTP session) or
   * `principal alice` (2026-07-28 callers over HTTP). Unset, this session.
   */
  readonly owner?: string;
  /** This server's --instance-id: script ids start with `<instance>.` (script-ids.ts). */
  readonly instance?: string;
  /** Who runs the scripts, as the audit log names them: the state's principal, and the session's label. */
  readonly identity: { readonly principal: string; readonly session: string };
  /** An MCP logging notification to this session's client. */
  readonly log: (data: unknown) => void;
  /** Where calls of `ask` tools wait for a person; absent, every allowed call goes straight on. */
  readonly approvals?: ApprovalGate;
}

/** What a task holds of its script: the script itself, and how to take its ending once. */
export interface TaskView {
  readonly script: Pick<Script, 'id' | 'status' | 'ended' | 'progress' | 'stop'>;
  readonly startedAt: number;
  readonly takeEnding: () => ScriptReturn;
}

interface Watch {
  readonly release: AbortController;
  /** Present when the watching call has a progress token. */
  readonly progress: ProgressThrottle | undefined;
}

interface Entry {
  readonly script: Script;
  readonly startedAt: number;
  endedAt: number | null;
  /** Some return has reached someone: a cancelled watch no longer stops the script. */
  returnedAnything: boolean;
  endingReturned: boolean;
  watch: Watch | null;
  /** What the approval gate decided for the script without a person (fallback, timeout). */
  readonly approvals: ApprovalTally;
}

/**
 * One MCP session's scripts: the whole code_execution tool behind its input. Runs are capped per
 * session (maxRunningScripts) and per server (the child supply); ended scripts are kept for a
 * later wait or list (endedScriptsKept); one call watches a script at a time.
 */
export class SessionScripts {
  private readonly entries = new Map<string, Entry>();
  private counter = 0;
  private closing = false;
  /** Runs waiting for a child (ChildSource.take): they count against maxRunningScripts. */
  private taking = 0;

  constructor(private readonly deps: SessionScriptsDeps) {}

  private get owner(): string {
    return this.deps.owner ?? 'this session';
  }

  /** Answers one code_execution call; bad input and full capacity are refusals, never throws. */
  handle(
    raw: unknown,
    ctx: WatchContext & { readonly interrupt?: undefined; readonly handOver?: undefined },
  ): Promise<CallToolResult>;
  handle(raw: unknown, ctx: WatchContext): Promise<CallToolResult | Interrupted>;
  async handle(raw: unknown, ctx: WatchContext): Promise<CallToolResult | Interrupted> {
    const parsed = parseInput(raw, this.deps.settings.maxYieldMs);
    if ('refused' in parsed) return refusalAnswer(parsed.refused);
    const input = parsed.input;
    const yieldMs = (given: number | undefined) => given ?? this.deps.settings.yieldMs;
    switch (input.action) {
      case 'run':
        return this.run(input.code, yieldMs(input.yield_ms), ctx);
      case 'wait': {
        const entry = this.entries.get(input.script);
        return entry
          ? this.watch(input.script, entry, yieldMs(input.yield_ms), ctx)
          : refusalAnswer(this.unknownScript(input.script));
      }
      case 'stop': {
        const entry = this.entries.get(input.script);
        if (!entry) return refusalAnswer(this.unknownScript(input.script));
        entry.script.stop('requested');
        return this.watch(input.script, entry, Number.POSITIVE_INFINITY, ctx);
      }
      case 'list':
        return this.list();
    }
  }

  /** Stops every script of the session; resolves once all have ended, with how each running one ended. */
  async close(): Promise<Array<{ readonly id: string; readonly status: string }>> {
    this.closing = true;
    const running = [...this.entries].filter(([, entry]) => entry.script.status === 'running');
    const scripts = [...this.entries.values()].map((entry) => entry.script);
    for (const script of scripts) script.stop('shutdown');
    await Promise.all(scripts.map((script) => script.ended));
    this.deps.supply.done();
    return running.map(([id, entry]) => ({ id, status: entry.script.status }));
  }

  private run(code: string, yieldMs: number, ctx: WatchContext): Promise<CallToolResult | Interrupted> | CallToolResult {
    if (this.closing) return refusalAnswer('the server is shutting down');
    const running = [...this.entries].filter(([, entry]) => entry.script.status === 'running').map(([id]) => id);
    const { maxRunningScripts } = this.deps.settings;
    if (running.length + this.taking >= maxRunningScripts) {
      return refusalAnswer(
        `${running.length} scripts are already running for ${this.owner}, its maxRunningScripts: ${running.join(', ')}. ` +
          'Wait for one ({"action": "wait", "script": "<id>"}) or stop one ({"action": "stop", "script": "<id>"}).',
      );
    }
    const supplied = this.deps.supply.take();
    if (!(supplied instanceof Promise)) return this.start(supplied, code, yieldMs, ctx);
    // Waiting for one of this owner's children to be free (child-pool.ts): counted as running meanwhile.
    this.taking++;
    return supplied.then((later) => {
      this.taking--;
      if (this.closing && 'child' in later) later.child.kill();
      if (this.closing) return refusalAnswer('the server is shutting down');
      return this.start(later, code, yieldMs, ctx);
    });
  }

  private start(
    supplied: Supplied,
    code: string,
    yieldMs: number,
    ctx: WatchContext,
  ): Promise<CallToolResult | Interrupted> | CallToolResult {
    if ('refused' in supplied) return refusalAnswer(supplied.refused);

    const id = `${scriptIdPrefix(this.deps.instance)}${++this.counter}`;
    const { settings } = this.deps;
    const watching = (): Watch | null => this.entries.get(id)?.watch ?? null;
    const tally = new ApprovalTally(settings.approvalFallback);
    const gate = this.deps.approvals;
    // The script's span, a child of the request that runs it; its calls' spans are its children.
    const trace = activeTelemetry().startScript({ id, code }, ctx.trace);
    const caller: CallCaller = {
      ...(trace.context !== undefined ? { trace: trace.context } : {}),
      script: { id, ...this.deps.identity },
    };
    const approve = gate && approveThrough(gate, id, this.deps.identity, tally);
    const fetchCaller = this.deps.callFetch?.({ id, caller, ...(approve !== undefined ? { approve } : {}) });
    const script = new Script(supplied.child.lease(), {
      id,
      code,
      tools: entriesWithSkills(toolEntries(this.deps.catalog()), this.deps.savedSkills?.() ?? []),
      unlisted: this.deps.unlisted(),
      // An upstream's progress on a script's call goes to the call watching the script.
      callTool: (name, args, signal, hold) => {
        const onProgress = (progress: Progress) => watching()?.progress?.push(describeProgress(name, progress));
        const send = () => this.deps.callTool(name, args, signal, onProgress, caller);
        const answer =
          gate === undefined
            ? send()
            : sendApproved(
                {
                  gate,
                  script: id,
                  tool: this.deps.catalog().find((tool) => tool.name === name),
                  name,
                  args,
                  signal,
                  hold,
                  identity: this.deps.identity,
                  tally,
                },
                send,
              );
        trace.countCall(answer);
        return answer;
      },
      ...(this.deps.callResource !== undefined ? { callResource: this.deps.callResource } : {}),
      ...(this.deps.callState !== undefined ? { callState: this.deps.callState } : {}),
      ...(this.deps.callSkills !== undefined ? { callSkills: this.deps.callSkills } : {}),
      ...(fetchCaller !== undefined
        ? {
            callFetch: (request, signal, hold) => {
              const answer = fetchCaller(request, signal, hold);
              // A fetch that failed on the way says `isError`, and counts as a call that failed after sending.
              trace.countCall(answer as Promise<{ readonly isError?: boolean }>);
              return answer;
            },
          }
        : {}),
      limits: settings,
      onOutput: (text) => watching()?.progress?.push(text),
      onNotify: (payload) => {
        this.deps.log({ script: id, notify: JSON.parse(payload) as unknown });
        watching()?.progress?.push(`notify: ${payload}`);
      },
    });
    const entry: Entry = {
      script,
      startedAt: Date.now(),
      endedAt: null,
      returnedAnything: false,
      endingReturned: false,
      watch: null,
      approvals: tally,
    };
    this.entries.set(id, entry);
    ctx.onStarted?.(id);
    void script.ended.then(() => {
      gate?.forget(id);
      trace.end({ status: script.status, ...(script.valueBytes !== undefined ? { valueBytes: script.valueBytes } : {}) });
      entry.endedAt = Date.now();
      this.forgetOldEnded();
    });
    return this.watch(id, entry, yieldMs, ctx);
  }

  /**
   * Watches until the script ends or the bound passes, then answers with what is new. A later
   * watch takes over: the earlier one answers at once. A cancelled watch takes nothing, so its
   * output waits for the next one; a script that had returned nothing to anyone is stopped.
   */
  private async watch(id: string, entry: Entry, boundMs: number, ctx: WatchContext): Promise<CallToolResult | Interrupted> {
    entry.watch?.release.abort();
    const watch: Watch = {
      release: new AbortController(),
      progress: ctx.onProgress ? new ProgressThrottle(ctx.onProgress) : undefined,
    };
    entry.watch = watch;
    const cancel = () => watch.release.abort();
    ctx.signal.addEventListener('abort', cancel, { once: true });
    ctx.interrupt?.addEventListener('abort', cancel, { once: true });
    if (ctx.interrupt?.aborted === true) cancel();
    try {
      await entry.script.watch(boundMs, watch.release.signal);
    } finally {
      ctx.signal.removeEventListener('abort', cancel);
      ctx.interrupt?.removeEventListener('abort', cancel);
      watch.progress?.stop();
      if (entry.watch === watch) entry.watch = null;
    }
    if (ctx.signal.aborted) {
      if (!entry.returnedAnything) entry.script.stop('watch-cancelled');
      return refusalAnswer('the client cancelled this call');
    }
    if ((ctx.interrupt?.aborted === true || ctx.handOver === true) && entry.script.status === 'running')
      return { interrupted: id };
    const ret = entry.script.takeReturn();
    entry.returnedAnything = true;
    if (ret.status !== 'running') entry.endingReturned = true;
    const waiting = ret.status === 'running' ? (this.deps.approvals?.waiting(id) ?? []) : [];
    return scriptAnswer(ret, [...waiting.map((call) => `waiting for approval: ${call}`), ...entry.approvals.lines()]);
  }

  /**
   * A script as its task sees it (caller-tasks.ts), or undefined when this owner has no script
   * `id`. Taking its ending counts as returning it, as a wait's would.
   */
  taskView(id: string): TaskView | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    const { script } = entry;
    return {
      script,
      startedAt: entry.startedAt,
      takeEnding: () => {
        const ret = script.takeReturn();
        entry.returnedAnything = true;
        entry.endingReturned = true;
        return ret;
      },
    };
  }

  private list(): CallToolResult {
    const now = Date.now();
    const listed: ListedScript[] = [...this.entries].map(([id, entry]) => ({
      id,
      status: entry.script.status,
      runningForMs: (entry.endedAt ?? now) - entry.startedAt,
      endedAgoMs: entry.endedAt === null ? null : now - entry.endedAt,
      endingReturned: entry.endingReturned,
      watched: entry.watch !== null,
    }));
    return textAnswer(renderList(listed), { scripts: listed });
  }

  /** Keeps endedScriptsKept ended scripts, forgetting first those whose ending someone has read. */
  private forgetOldEnded(): void {
    const ended = [...this.entries].filter(([, entry]) => entry.endedAt !== null);
    let excess = ended.length - this.deps.settings.endedScriptsKept;
    if (excess <= 0) return;
    const byAge = ended.sort(([, a], [, b]) => Number(b.endingReturned) - Number(a.endingReturned) || a.endedAt! - b.endedAt!);
    for (const [id, entry] of byAge) {
      if (excess-- <= 0) break;
      if (entry.watch === null) this.entries.delete(id);
    }
  }

  /** A script id this session doesn't hold: another instance's, an earlier run's, or one it never had. */
  private unknownScript(id: string): string {
    const foreign = foreignInstance(id, this.deps.instance);
    if (foreign !== undefined) return foreign;
    const known = [...this.entries.keys()];
    const elsewhere = fromEarlierRun(id, this.deps.instance);
    return (
      `no script ${quoteInput(id)} of ${this.owner}` +
      (elsewhere ? ': it was started by an earlier run of the server, and ended with it' : '') +
      `. ${known.length > 0 ? `Its scripts: ${known.join(', ')}.` : 'It has no scripts.'}`
    );
  }
}

/** `tools["slow"]: 3/10 copying` */
function describeProgress(tool: string, progress: Progress): string {
  const count = progress.total !== undefined ? `${progress.progress}/${progress.total}` : String(progress.progress);
  return `tools[${JSON.stringify(tool)}]: ${count}${progress.message !== undefined ? ` ${progress.message}` : ''}`;
}
