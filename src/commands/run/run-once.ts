/**
 * `codemode-mcp run <file|->`: runs one script once against the upstreams, as code_execution
 * would, and prints its answer: the text (or, with --json, the whole answer with its blocks and
 * structuredContent). For writing and debugging a script by hand. Exits 0 when the script
 * finished, 1 when it failed, crashed or was stopped, 2 when it was refused (nothing ran), and
 * 128 + the signal's number when a signal (SIGINT, SIGTERM, SIGHUP) stopped it, once what it
 * started has ended.
 */
import { savedSkillsOf } from '../../skills/skills-api.js';
import { skillsDirectory } from '../../skills/skills-directory.js';
import { SkillsLibrary } from '../../skills/skills-library.js';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { CliInvocation } from '../../cli/parse-cli.js';
import { ScriptChild } from '../../script-host/script-child.js';
import { Script } from '../../script-host/script.js';
import { refusalAnswer, scriptAnswer, typeRefusalAnswer } from '../../mcp/code-execution/answer.js';
import { parseCommand } from '../../mcp/code-execution/input.js';
import { fetcherFor } from '../../fetch/fetcher.js';
import { createHostApis, type HostApis } from '../../mcp/host-apis.js';
import { checkBeforeRun } from '../../scripts/checked-run.js';
import { scriptApis } from '../../scripts/script-apis.js';
import { entriesWithSkills, toolEntries } from '../../scripts/tool-entries.js';
import { startCommandHub } from '../one-shot-hub.js';
import { closeLeavingNoProcess } from '../../support/process-tree.js';
import { listenForEndSignals, signalExitCode, type EndSignals } from '../../support/end-signals.js';
import { processLog, type Log } from '../../support/log.js';
import { openStateStore } from '../../state/open-state-store.js';
import { LOCAL_PRINCIPAL, type StateStore } from '../../state/state-store.js';
import { readPackageVersion } from '../../cli/package-version.js';
import { activeTelemetry } from '../../telemetry/telemetry.js';
import { startObserving } from '../serve-startup.js';
import { ApprovalGate } from '../../approvals/approval-gate.js';
import { ApprovalTally } from '../../scripts/approved-calls.js';
import { terminalOrigin, type ApprovalTerminal } from './terminal-approvals.js';

/** The exit codes of `run`, by how the script came out. */
export const RUN_EXIT = { finished: 0, failed: 1, refused: 2 } as const;

export interface RunOnceIo {
  readonly stdout: (text: string) => void;
  readonly stderr: Log;
  /** The script when its path is `-`. */
  readonly readStdin: () => string;
  /** Where a person answers approval questions; absent, no one is asked (approvalFallback decides). */
  readonly terminal?: ApprovalTerminal;
}

const processIo: RunOnceIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: processLog,
  readStdin: () => readFileSync(0, 'utf8'),
  ...(process.stdin.isTTY ? { terminal: { input: process.stdin, output: process.stderr } } : {}),
};

export async function runOnce(invocation: CliInvocation, io: RunOnceIo = processIo): Promise<number> {
  const { settings } = invocation;
  const path = invocation.script?.path ?? '-';
  const json = invocation.script?.json ?? false;
  const print = (answer: ReturnType<typeof scriptAnswer>): void => {
    const text = answer.content[0]?.type === 'text' ? answer.content[0].text : '';
    io.stdout(json ? `${JSON.stringify(answer, null, 2)}\n` : text.endsWith('\n') ? text : `${text}\n`);
  };

  let code: string;
  try {
    code = path === '-' ? io.readStdin() : readFileSync(path, 'utf8');
  } catch (error) {
    print(refusalAnswer(`cannot read the script ${path === '-' ? 'from stdin' : path}: ${(error as Error).message}`));
    return RUN_EXIT.refused;
  }
  const parsed = parseCommand({ code }, settings.maxYieldMs);
  if ('refused' in parsed) {
    print(refusalAnswer(parsed.refused));
    return RUN_EXIT.refused;
  }

  const signals = listenForEndSignals(io.stderr);
  try {
    const status = await startAndRun(invocation, io, code, print, signals);
    return signals.received === undefined ? status : signalExitCode(signals.received);
  } finally {
    signals.dispose();
  }
}

async function startAndRun(
  invocation: CliInvocation,
  io: RunOnceIo,
  code: string,
  print: (answer: ReturnType<typeof scriptAnswer>) => void,
  signals: EndSignals,
): Promise<number> {
  const { settings } = invocation;
  // As a server's script: traced, and audited, when the settings say so.
  const observability = await startObserving(settings, readPackageVersion(), io.stderr);
  if (observability === undefined) return RUN_EXIT.failed;
  const hub = await startCommandHub(invocation, io.stderr, signals);
  if (hub === null) {
    await observability.close();
    return RUN_EXIT.failed;
  }
  let state: StateStore | undefined;
  let apis: HostApis | undefined;
  let closeTerminal = (): void => {};
  try {
    // The stdio server's own state (LOCAL_PRINCIPAL): a script run by hand sees what the server's scripts stored.
    state = await openStateStore(settings, io.stderr);
    const library = new SkillsLibrary(skillsDirectory(settings));
    // The stdio server's state and skills: what a script run by hand saves, the server's scripts call;
    // its fetch() as the server's scripts make it, a person at the terminal asked where the config says so.
    apis = createHostApis({
      hub,
      state,
      skills: { library, saving: () => ({ allowed: true, principal: 'run' }), onSaved: () => Promise.resolve() },
      fetcher: fetcherFor(settings, io.stderr, readPackageVersion()),
      settings,
      log: io.stderr,
    });
    const owner = apis.forOwner({ principal: LOCAL_PRINCIPAL, label: 'run' });
    // Checked before anything runs, against the catalog the script is then given.
    const catalog = hub.catalog().tools;
    const checked = await checkBeforeRun(owner, code, catalog);
    if ('refused' in checked) {
      print(typeRefusalAnswer(checked.refused));
      return RUN_EXIT.refused;
    }
    const tools = entriesWithSkills(toolEntries(catalog), await savedSkillsOf(library)());
    const id = `${randomBytes(3).toString('hex')}-1`;
    const trace = activeTelemetry().startScript({ id, code }, undefined);
    // A person at a terminal is asked about the calls that need approval; without one, approvalFallback decides.
    // stdin that carried the script has nothing left to answer with.
    const asking = terminalOrigin(invocation.script?.path === '-' ? undefined : io.terminal);
    closeTerminal = asking.close;
    const gate = new ApprovalGate({
      person: asking.person,
      timeoutMs: settings.approvalTimeoutMs,
      fallback: settings.approvalFallback,
      owner: 'this run',
      cannotAsk: asking.cannotAsk,
      log: io.stderr,
    });
    const tally = new ApprovalTally(settings.approvalFallback, asking.cannotAsk);
    const identity = { principal: LOCAL_PRINCIPAL, session: 'run' };
    const script = new Script(
      new ScriptChild({
        memoryMaxBytes: settings.memoryMaxBytes,
        notifyMax: settings.notifyMax,
        showMaxBytes: settings.showMaxBytes,
      }),
      {
        id,
        code,
        // The saved skills beside the tools, for searchTools.
        tools,
        unlisted: hub.unlistedPrefixes(),
        apis: scriptApis(owner, {
          id,
          identity,
          trace,
          catalog: () => hub.catalog().tools,
          gate,
          tally,
          // No one watches a script run by hand: its upstreams' progress has nowhere to go.
          onProgress: () => {},
        }),
        limits: settings,
      },
    );
    // A signal stops the script, which then ends as stopped and is printed so; what run started is closed.
    void signals.first.then(() => script.stop('requested'));
    await script.ended;
    trace.end({ status: script.status, ...(script.valueBytes !== undefined ? { valueBytes: script.valueBytes } : {}) });
    const ret = script.takeReturn();
    print(scriptAnswer(ret, tally.lines(), checked.note));
    return ret.status === 'finished' ? RUN_EXIT.finished : RUN_EXIT.failed;
  } finally {
    closeTerminal();
    await Promise.all([state?.close(), apis?.close()]);
    await closeLeavingNoProcess(() => hub.close(), io.stderr, hub.processGroups);
    await observability.close();
  }
}
