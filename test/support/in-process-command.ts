/**
 * A one-shot command (`codemode-mcp tools`, `codemode-mcp run`) as bin/codemode-mcp.js runs it
 * (the same command line, parseCli, then printTools or runOnce), but in the test's own process,
 * with its stdout, stderr and stdin as strings. Its upstreams and the script's child stay real
 * processes. What the process itself shows (its exit status, a terminal, a signal, the log file
 * set at its start) needs runBin (mcp-client.ts) instead.
 */
import { isCliExit, parseCli } from '../../src/cli/parse-cli.js';
import { printTools } from '../../src/commands/tools/print-tools.js';
import { runOnce } from '../../src/commands/run/run-once.js';
import { serverLog, trackStarted } from './in-process-server.js';

export interface CommandOutcome {
  readonly stdout: string;
  /** Its log, a line each, at its --log-level. */
  readonly stderr: string;
  /** What the command returned, which bin/ makes its exit code. */
  readonly exitCode: number;
  /** The processes it started that are still alive once it has returned (there should be none). */
  readonly left: number[];
}

/** Runs `tools` or `run` with these arguments (and `input` as its stdin, for `run -`) in this process. */
export async function runInProcess(args: readonly string[], input?: string): Promise<CommandOutcome> {
  const invocation = parseCli(args);
  if (isCliExit(invocation))
    throw new Error(`the command line was refused (exit ${invocation.exit}): ${invocation.stderr ?? ''}`);
  const { log, stderr } = serverLog(invocation.logging.logLevel);
  let stdout = '';
  const write = (text: string): void => void (stdout += text);
  const started = trackStarted();
  // As main.ts does before any command: an entry that would start codemode-mcp again is said to be left out.
  for (const line of invocation.skippedUpstreams ?? []) log(line, 'warn');
  let exitCode: number;
  try {
    if (invocation.command === 'tools') exitCode = await printTools(invocation, { stdout: write, stderr: log });
    else if (invocation.command === 'run') {
      const readStdin = (): string => {
        if (input === undefined) throw new Error('the script is read from stdin, and the test gave none');
        return input;
      };
      exitCode = await runOnce(invocation, { stdout: write, stderr: log, readStdin });
    } else throw new Error(`runInProcess runs tools and run, not ${invocation.command}`);
  } finally {
    started.sample();
    started.stop();
  }
  return { stdout, stderr: stderr(), exitCode, left: await started.leftAlive() };
}
