/**
 * `codemode-mcp tools`: starts the upstreams, prints what a script can call, closes them.
 * Upstream chatter on stderr is left out; a failure line already quotes its last words.
 */
import type { CliInvocation } from '../../cli/parse-cli.js';
import { renderTools } from '../../catalog/render-tools.js';
import { renderFetchPolicy } from '../../fetch/render-policy.js';
import { startCommandHub } from '../one-shot-hub.js';
import { closeLeavingNoProcess } from '../../support/process-tree.js';
import { listenForEndSignals, signalExitCode, type EndSignals } from '../../support/end-signals.js';
import { Logger, processLog, type Log } from '../../support/log.js';
import { describeTokens } from '../../tokenize/tokens-note.js';
import { tokenLabels } from '../../tokenize/token-text.js';

export interface PrintToolsOutput {
  readonly stdout: (text: string) => void;
  readonly stderr: Log;
}

const processOutput: PrintToolsOutput = {
  stdout: (text) => void process.stdout.write(text),
  stderr: processLog,
};

/**
 * Returns the exit code: 0 when every upstream started; 1 when any could not (each one named with
 * its reason on stderr), after printing the tools of those that did, so a script is never written
 * against a list that silently lacks a server; 128 + the signal's number when a signal ended it
 * (after closing what it started).
 */
export async function printTools(invocation: CliInvocation, output: PrintToolsOutput = processOutput): Promise<number> {
  const signals = listenForEndSignals(output.stderr);
  try {
    const code = await startAndPrint(invocation, output, signals);
    return signals.received === undefined ? code : signalExitCode(signals.received);
  } finally {
    signals.dispose();
  }
}

async function startAndPrint(invocation: CliInvocation, output: PrintToolsOutput, signals: EndSignals): Promise<number> {
  const hub = await startCommandHub(invocation, output.stderr, signals);
  if (hub === null) return 1;
  try {
    const statuses = hub.upstreamStatus();
    const failed = statuses.filter((status) => status.state !== 'ready');
    const reasons = failed.map((status) => `  ${status.name}: ${status.reason ?? status.state}`).join('\n');
    if (failed.length === statuses.length) {
      Logger.of(output.stderr).error(`no upstream server could start:\n${reasons}`);
      return 1;
    }
    const { tokenize } = invocation.settings;
    output.stdout(
      renderTools(
        hub.catalog().tools,
        failed.map((status) => status.name),
        tokenize !== null ? describeTokens(tokenLabels(tokenize)) : undefined,
      ),
    );
    if (invocation.settings.fetch.length > 0) output.stdout(`\n${renderFetchPolicy(invocation.settings.fetch)}`);
    if (failed.length === 0) return 0;
    Logger.of(output.stderr).error(
      `${failed.length} of ${statuses.length} upstream servers could not start, and their tools are not listed:\n${reasons}`,
    );
    return 1;
  } finally {
    await closeLeavingNoProcess(() => hub.close(), output.stderr, hub.processGroups);
  }
}
