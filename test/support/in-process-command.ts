/**
 * A one-shot command (`codemode-mcp tools`, `run`, `skills`, `login`, `logout`) as
 * bin/codemode-mcp.js runs it (the same command line, parseCli, then the command as src/main.ts
 * dispatches it), but in the test's own process, with its stdout, stderr and stdin as strings.
 * Its upstreams and the script's child stay real processes. What the process itself shows (a
 * terminal, a signal, the log file and the environment read at its start) needs runBin
 * (mcp-client.ts) instead.
 */
import { isCliExit, parseCli } from '../../src/cli/parse-cli.js';
import { printTools } from '../../src/commands/tools/print-tools.js';
import { runOnce } from '../../src/commands/run/run-once.js';
import { checkScript } from '../../src/commands/check/check-script.js';
import { runSkillsCommand } from '../../src/commands/skills/skills-commands.js';
import { runAuthCommand } from '../../src/commands/auth/auth-commands.js';
import { serverLog, trackStarted } from './in-process-server.js';

export interface CommandOutcome {
  /** What it printed, its final newline taken off as runBin's are (as a shell's $(...) would). */
  readonly stdout: string;
  /** What it wrote to stderr (its log at its --log-level, a line each), likewise. */
  readonly stderr: string;
  /** What the command returned, which bin/ makes its exit code. */
  readonly exitCode: number;
  /** The processes it started that are still alive once it has returned (there should be none). */
  readonly left: number[];
}

export interface CommandOptions {
  /** Its stdin, for `run -`. */
  readonly input?: string;
  /** Called with each line it writes to stderr as it writes it (a sign-in link to follow, say). */
  readonly onStderrLine?: (line: string) => void;
}

const withoutFinalNewline = (text: string): string => text.replace(/\r?\n$/, '');

/** Runs the command these arguments name in this process. */
export async function runInProcess(args: readonly string[], options: CommandOptions = {}): Promise<CommandOutcome> {
  const { input, onStderrLine } = options;
  const invocation = parseCli(args);
  if (isCliExit(invocation)) {
    const { exit, stdout = '', stderr = '' } = invocation;
    return { stdout: withoutFinalNewline(stdout), stderr: withoutFinalNewline(stderr), exitCode: exit, left: [] };
  }
  const { log, write, stderr } = serverLog(invocation.logging.logLevel, onStderrLine);
  let stdout = '';
  const print = (text: string): void => void (stdout += text);
  const started = trackStarted();
  // As main.ts does before any command: an entry that would start codemode-mcp again is said to be left out.
  for (const line of invocation.skippedUpstreams ?? []) log(line, 'warn');
  const readStdin = (): string => {
    if (input === undefined) throw new Error('the script is read from stdin, and the test gave none');
    return input;
  };
  let exitCode: number;
  try {
    switch (invocation.command) {
      case 'tools':
        exitCode = await printTools(invocation, { stdout: print, stderr: log });
        break;
      case 'run':
        exitCode = await runOnce(invocation, { stdout: print, stderr: log, readStdin });
        break;
      case 'check':
        exitCode = await checkScript(invocation, { stdout: print, stderr: log, readStdin });
        break;
      case 'skills':
        exitCode = await runSkillsCommand(invocation, { stdout: print, stderr: write });
        break;
      case 'login':
      case 'logout':
        exitCode = await runAuthCommand(invocation, (line) => write(`${line}\n`));
        break;
      case 'serve':
        throw new Error('runInProcess runs the one-shot commands; serving is startInProcess or startInProcessHttp');
    }
  } finally {
    started.sample();
    started.stop();
  }
  return {
    stdout: withoutFinalNewline(stdout),
    stderr: withoutFinalNewline(stderr()),
    exitCode,
    left: await started.leftAlive(),
  };
}
