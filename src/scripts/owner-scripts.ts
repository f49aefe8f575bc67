import type { CatalogTool } from '../catalog/types.js';
import { Script } from '../script-host/script.js';
import type { ScriptReturn, ScriptStatus } from '../script-host/types.js';
import type { Settings } from '../config/settings.js';
import type { ChildSource, Supplied } from './child-pool.js';
import { quoteInput } from '../support/echo.js';
import { ProgressThrottle } from './progress-throttle.js';
import { entriesWithSkills, toolEntries, type SkillEntrySource } from './tool-entries.js';
import { foreignInstance, fromEarlierRun, nextScriptId } from './script-ids.js';
import { activeTelemetry, type TraceContext } from '../telemetry/telemetry.js';
import type { ApprovalGate } from '../approvals/approval-gate.js';
import { ApprovalTally } from './approved-calls.js';
import { scriptApis, type OwnerApis } from './script-apis.js';
import { checkBeforeRun, type TypeRefusal } from './checked-run.js';

/** What a code_execution call asks of an owner's scripts, its input checked (src/mcp/code-execution/input.ts). */
export type ScriptCommand =
  | {
      readonly action: 'run';
      readonly code: string;
      readonly yieldMs?: number;
      /** The code as the client sent it, when its tokens were put back in `code` (settings.tokenize): what the span records. */
      readonly sentCode?: string;
    }
  | { readonly action: 'wait'; readonly script: string; readonly yieldMs?: number }
  | { readonly action: 'stop'; readonly script: string }
  | { readonly action: 'list' };

/**
 * What the scripts answer a command with. `return`: what a script did since its last return (its
 * ending once it has one), with lines on calls that wait for a person or that the approval
 * fallback decided, and on the run's first return what the type check found when it still ran
 * (`typeCheck`); `refused`: nothing ran (capacity, an unknown script, a shutdown, a cancelled
 * call); `type-refused`: the type check refused the script, nothing ran; `listed`: the owner's
 * scripts; `interrupted`: the watch was ended early (WatchContext) with the script still running,
 * and took nothing.
 */
export type ScriptReply =
  | { readonly kind: 'return'; readonly ret: ScriptReturn; readonly approvals: readonly string[]; readonly typeCheck?: string }
  | { readonly kind: 'refused'; readonly reason: string }
  | ({ readonly kind: 'type-refused' } & TypeRefusal)
  | { readonly kind: 'listed'; readonly scripts: readonly ListedScript[] }
  | { readonly kind: 'interrupted'; readonly script: string };

/** A run's code: what runs, and what the client sent when that differs. */
type RunCode = Pick<Extract<ScriptCommand, { action: 'run' }>, 'code' | 'sentCode'>;

/** A run past its type check: the catalog it was checked against and is given, and what the check found when it still runs. */
type Checked = RunCode & { readonly catalog: readonly CatalogTool[]; readonly typeCheck: string | undefined };

export interface ListedScript {
  readonly id: string;
  readonly status: ScriptStatus;
  readonly runningForMs: number;
  readonly endedAgoMs: number | null;
  /** Someone has read this script's ending. */
  readonly endingReturned: boolean;
  /** A call is watching it now. */
  readonly watched: boolean;
}

export interface WatchContext {
  /** Aborts when the client cancels its call: the watch is released. */
  readonly signal: AbortSignal;
  /**
   * Present when the client's call carried a progress token; may return a promise of the
   * notification written, which the watch's answer then waits for.
   */
  readonly onProgress?: (message: string) => unknown;
  /**
   * Aborts when the watching call must answer before the script ends or yields: a 2026-07-28
   * client is asked for input (`input_required`). The watch then takes nothing; what is new waits
   * for the next watch, which the client's retry makes.
   */
  readonly interrupt?: AbortSignal;
  /** The client request's span: a script it runs is its child. */
  readonly trace?: TraceContext;
  /**
   * The client takes a script still running as an MCP task: a watch that ends with the script
   * running takes nothing either, and answers `interrupted`.
   */
  readonly handOver?: boolean;
  /** Told the id of the script a run starts, before the watch begins. */
  readonly onStarted?: (id: string) => void;
}

export interface OwnerScriptsDeps {
  readonly supply: ChildSource;
  readonly catalog: () => readonly CatalogTool[];
  /** Name prefixes of upstreams that have not listed their tools yet. */
  readonly unlisted: () => readonly string[];
  /** The host APIs, bound to this owner (src/mcp/host-apis.ts). */
  readonly apis: OwnerApis;
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
  /** A logging notification to the owner's client (a script's notify()). */
  readonly log: (data: unknown) => void;
  /** Where calls of `ask` tools wait for a person; absent, every allowed call goes straight on. */
  readonly approvals?: ApprovalGate;
}

/** What an MCP task holds of its script: the script itself, and how to take its ending once. */
export interface TaskView {
  readonly script: Pick<Script, 'id' | 'status' | 'ended' | 'progress' | 'stop'>;
  readonly startedAt: number;
  /** The ending, and what the type check found if no return has carried it yet. */
  readonly takeEnding: () => { readonly ret: ScriptReturn; readonly typeCheck?: string };
  /** The calls waiting for a person, a line each (with the approval page's link when only the model can pass it on). */
  readonly waitingApproval: () => readonly string[];
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
  /** What the type check found in a script it let run (warn, or the checker unavailable), until a return carries it. */
  typeCheck: string | undefined;
}

/**
 * One owner's scripts (a connection, a 2025 HTTP session, or a principal: docs/architecture.md's
 * glossary), behind the code_execution tool's commands. Runs are capped per owner
 * (maxRunningScripts) and per server (the child supply); ended scripts are kept for a later wait
 * or list (endedScriptsKept); one call watches a script at a time.
 */
export class OwnerScripts {
  private readonly entries = new Map<string, Entry>();
  private closing = false;
  /** Runs being type-checked or waiting for a child (ChildSource.take): they count against maxRunningScripts. */
  private taking = 0;
  /** Scripts whose approval link only the model can pass on, told while no call watched them: the next watch answers at once. */
  private readonly urgent = new Set<string>();

  constructor(private readonly deps: OwnerScriptsDeps) {
    deps.approvals?.onUrgent((id) => {
      const entry = this.entries.get(id);
      if (entry?.watch != null) entry.watch.release.abort();
      else if (entry !== undefined) this.urgent.add(id);
    });
  }

  private get owner(): string {
    return this.deps.owner ?? 'this session';
  }

  /** Carries out one command; bad ids and full capacity are refusals, never throws. */
  async command(command: ScriptCommand, ctx: WatchContext): Promise<ScriptReply> {
    const yieldMs = (given: number | undefined) => given ?? this.deps.settings.yieldMs;
    switch (command.action) {
      case 'run':
        return this.run(command, yieldMs(command.yieldMs), ctx);
      case 'wait': {
        const entry = this.entries.get(command.script);
        return entry ? this.watch(command.script, entry, yieldMs(command.yieldMs), ctx) : this.unknownScript(command.script);
      }
      case 'stop': {
        const entry = this.entries.get(command.script);
        if (!entry) return this.unknownScript(command.script);
        entry.script.stop('requested');
        return this.watch(command.script, entry, Number.POSITIVE_INFINITY, ctx);
      }
      case 'list':
        return { kind: 'listed', scripts: this.list() };
    }
  }

  /** Stops every script of the owner; resolves once all have ended, with how each running one ended. */
  async close(): Promise<Array<{ readonly id: string; readonly status: string }>> {
    this.closing = true;
    const running = [...this.entries].filter(([, entry]) => entry.script.status === 'running');
    const scripts = [...this.entries.values()].map((entry) => entry.script);
    for (const script of scripts) script.stop('shutdown');
    await Promise.all(scripts.map((script) => script.ended));
    this.deps.supply.done();
    return running.map(([id, entry]) => ({ id, status: entry.script.status }));
  }

  private run(code: RunCode, yieldMs: number, ctx: WatchContext): Promise<ScriptReply> | ScriptReply {
    if (this.closing) return refused('the server is shutting down');
    const running = [...this.entries].filter(([, entry]) => entry.script.status === 'running').map(([id]) => id);
    const { maxRunningScripts } = this.deps.settings;
    if (running.length + this.taking >= maxRunningScripts) {
      return refused(
        `${running.length} scripts are already running for ${this.owner}, its maxRunningScripts: ${running.join(', ')}. ` +
          'Wait for one ({"action": "wait", "script": "<id>"}) or stop one ({"action": "stop", "script": "<id>"}).',
      );
    }
    // Checked, then given, this very catalog.
    const catalog = this.deps.catalog();
    // typeCheck off: taken in this very turn, as before the check existed.
    if (this.deps.apis.typeCheck === undefined) return this.take({ ...code, catalog, typeCheck: undefined }, yieldMs, ctx);
    // Being checked counts as running.
    this.taking++;
    // The code as the model sent it (its tokens unrestored), so each line:column is in its own text.
    return checkBeforeRun(this.deps.apis, code.sentCode ?? code.code, catalog).then(
      (checked): Promise<ScriptReply> | ScriptReply => {
        this.taking--;
        if ('refused' in checked) return { kind: 'type-refused', ...checked.refused };
        if (this.closing) return refused('the server is shutting down');
        return this.take({ ...code, catalog, typeCheck: checked.note }, yieldMs, ctx);
      },
      (error: unknown) => {
        this.taking--;
        throw error;
      },
    );
  }

  private take(run: Checked, yieldMs: number, ctx: WatchContext): Promise<ScriptReply> | ScriptReply {
    const supplied = this.deps.supply.take();
    if (!(supplied instanceof Promise)) return this.start(supplied, run, yieldMs, ctx);
    // Waiting for one of this owner's children to be free (child-pool.ts): counted as running meanwhile.
    this.taking++;
    return supplied.then((later) => {
      this.taking--;
      if (this.closing && 'child' in later) later.child.kill();
      if (this.closing) return refused('the server is shutting down');
      return this.start(later, run, yieldMs, ctx);
    });
  }

  private start(
    supplied: Supplied,
    { code, sentCode, catalog, typeCheck }: Checked,
    yieldMs: number,
    ctx: WatchContext,
  ): Promise<ScriptReply> | ScriptReply {
    if ('refused' in supplied) return refused(supplied.refused);

    const id = nextScriptId(this.deps.instance);
    const { settings } = this.deps;
    const watching = (): Watch | null => this.entries.get(id)?.watch ?? null;
    const tally = new ApprovalTally(settings.approvalFallback);
    const gate = this.deps.approvals;
    // The script's span, a child of the request that runs it; its calls' spans are its children.
    const trace = activeTelemetry().startScript({ id, code: sentCode ?? code }, ctx.trace);
    const script = new Script(supplied.child.lease(), {
      id,
      code,
      tools: entriesWithSkills(toolEntries(catalog), this.deps.savedSkills?.() ?? []),
      unlisted: this.deps.unlisted(),
      apis: scriptApis(this.deps.apis, {
        id,
        identity: this.deps.identity,
        trace,
        catalog: this.deps.catalog,
        gate,
        tally,
        // An upstream's progress on a script's call goes to the call watching the script.
        onProgress: (line) => watching()?.progress?.push(line),
      }),
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
      typeCheck,
    };
    this.entries.set(id, entry);
    ctx.onStarted?.(id);
    void script.ended.then(() => {
      gate?.forget(id);
      this.urgent.delete(id);
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
  private async watch(id: string, entry: Entry, boundMs: number, ctx: WatchContext): Promise<ScriptReply> {
    entry.watch?.release.abort();
    const watch: Watch = {
      release: new AbortController(),
      progress: ctx.onProgress ? new ProgressThrottle(ctx.onProgress) : undefined,
    };
    entry.watch = watch;
    // A link the model must pass on, given while no call watched: this watch carries it at once.
    if (this.urgent.delete(id)) watch.release.abort();
    const cancel = () => watch.release.abort();
    ctx.signal.addEventListener('abort', cancel, { once: true });
    ctx.interrupt?.addEventListener('abort', cancel, { once: true });
    if (ctx.interrupt?.aborted === true) cancel();
    let written: Promise<void> | undefined;
    try {
      await entry.script.watch(boundMs, watch.release.signal);
    } finally {
      ctx.signal.removeEventListener('abort', cancel);
      ctx.interrupt?.removeEventListener('abort', cancel);
      written = watch.progress?.stop();
      if (entry.watch === watch) entry.watch = null;
    }
    // Regression: under load the answer overtook the progress notifications sent just before it.
    await written;
    if (ctx.signal.aborted) {
      if (!entry.returnedAnything) entry.script.stop('watch-cancelled');
      return refused('the client cancelled this call');
    }
    if ((ctx.interrupt?.aborted === true || ctx.handOver === true) && entry.script.status === 'running')
      return { kind: 'interrupted', script: id };
    const ret = entry.script.takeReturn();
    entry.returnedAnything = true;
    if (ret.status !== 'running') entry.endingReturned = true;
    const waiting = ret.status === 'running' ? (this.deps.approvals?.waiting(id) ?? []) : [];
    const typeCheck = takeTypeCheck(entry);
    return {
      kind: 'return',
      ret,
      approvals: [...waiting.map((call) => `waiting for approval: ${call}`), ...entry.approvals.lines()],
      ...(typeCheck !== undefined ? { typeCheck } : {}),
    };
  }

  /**
   * A script as its MCP task sees it, or undefined when this owner has no script
   * `id`. Taking its ending counts as returning it, as a wait's would.
   */
  taskView(id: string): TaskView | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    const { script } = entry;
    return {
      script,
      startedAt: entry.startedAt,
      waitingApproval: () => this.deps.approvals?.waiting(id) ?? [],
      takeEnding: () => {
        const ret = script.takeReturn();
        entry.returnedAnything = true;
        entry.endingReturned = true;
        const typeCheck = takeTypeCheck(entry);
        return typeCheck !== undefined ? { ret, typeCheck } : { ret };
      },
    };
  }

  private list(): ListedScript[] {
    const now = Date.now();
    return [...this.entries].map(([id, entry]) => ({
      id,
      status: entry.script.status,
      runningForMs: (entry.endedAt ?? now) - entry.startedAt,
      endedAgoMs: entry.endedAt === null ? null : now - entry.endedAt,
      endingReturned: entry.endingReturned,
      watched: entry.watch !== null,
    }));
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

  /** A script id this owner doesn't hold: another instance's, an earlier run's, or one it never had. */
  private unknownScript(id: string): ScriptReply {
    const foreign = foreignInstance(id, this.deps.instance);
    if (foreign !== undefined) return refused(foreign);
    const known = [...this.entries.keys()];
    const elsewhere = fromEarlierRun(id, this.deps.instance);
    return refused(
      `no script ${quoteInput(id)} of ${this.owner}` +
        (elsewhere ? ': it was started by an earlier run of the server, and ended with it' : '') +
        `. ${known.length > 0 ? `Its scripts: ${known.join(', ')}.` : 'It has no scripts.'}`,
    );
  }
}

/** What the type check found, for the first return that reaches anyone. */
function takeTypeCheck(entry: Entry): string | undefined {
  const { typeCheck } = entry;
  entry.typeCheck = undefined;
  return typeCheck;
}

function refused(reason: string): ScriptReply {
  return { kind: 'refused', reason };
}
