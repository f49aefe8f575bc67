/**
 * How `codemode-mcp run` asks a person about a call that needs approval: on the terminal when
 * its stdin is one (the question on stderr, since stdout is the script's answer; one question at
 * a time), and else not at all, so approvalFallback decides.
 */
import { createInterface, type Interface } from 'node:readline';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import type { PersonChannel } from '../../approvals/approval-gate.js';
import { APPROVAL_GRANT_DEFAULT_MINUTES } from '../../approvals/approval-question.js';
import { revealControls } from '../../support/echo.js';

/** The terminal a person answers on: stdin when it is a TTY, the question written to stderr. */
export interface ApprovalTerminal {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
}

export interface TerminalAsking {
  readonly person: PersonChannel;
  /** Why no one can be asked, when there is no terminal. */
  readonly cannotAsk: string;
  /** Lets go of the terminal. */
  readonly close: () => void;
}

const NO_TERMINAL = "stdin is not a terminal, so codemode-mcp run can't ask a person";

/** `terminal`: absent when stdin is not a TTY (or carried the script). */
export function terminalOrigin(terminal: ApprovalTerminal | undefined): TerminalAsking {
  // A line typed before its question was shown answers nothing: a stray key must not approve a call.
  let reader: ((line: string) => void) | undefined;
  // Read from the start, so a line typed before a question is seen, and dropped, not kept for it.
  const lines: Interface | undefined =
    terminal === undefined ? undefined : createInterface({ input: terminal.input, terminal: false });
  lines?.on('line', (line) => reader?.(line));
  const read = (prompt: string, signal: AbortSignal): Promise<string> =>
    new Promise((resolve, reject) => {
      const onAbort = (): void => {
        reader = undefined;
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      reader = (line) => {
        reader = undefined;
        signal.removeEventListener('abort', onAbort);
        resolve(line.trim());
      };
      // Listening before the prompt is out: an answer can't come before it, but may come with it.
      terminal!.output.write(prompt);
    });
  let queue: Promise<unknown> = Promise.resolve();
  const ask = async (request: ElicitRequest, signal: AbortSignal): Promise<ElicitResult> => {
    const params = request.params as unknown as {
      message: string;
      requestedSchema: { properties: { decision: { oneOf: { const: string; title: string }[] } } };
    };
    // The choices as the form offers them, in its order: "review" is there only when several calls wait.
    const choices = params.requestedSchema.properties.decision.oneOf;
    // The question escapes what an upstream wrote already; the terminal does too, since an escape sequence here would act on it.
    const titles = choices.map((choice, i) => `  ${i + 1}. ${revealControls(choice.title)}`);
    const answer = await read(
      `\n${revealControls(params.message, 'lines')}\n${titles.join('\n')}\nChoose 1-${titles.length}: `,
      signal,
    );
    // Only a number typed for one of the choices answers; anything else is a denial.
    const decision = /^[1-9]\d*$/.test(answer) ? choices[Number(answer) - 1]?.const : undefined;
    if (decision === undefined) return { action: 'decline' };
    if (decision !== 'allow-owner') return { action: 'accept', content: { decision } };
    const typed = await read(`Minutes [${APPROVAL_GRANT_DEFAULT_MINUTES}]: `, signal);
    if (typed === '') return { action: 'accept', content: { decision, minutes: APPROVAL_GRANT_DEFAULT_MINUTES } };
    // Minutes that are not a whole number of at least one grant nothing.
    if (!/^[1-9]\d*$/.test(typed)) return { action: 'decline' };
    return { action: 'accept', content: { decision, minutes: Number(typed) } };
  };
  const person: PersonChannel = {
    accepts: () => terminal !== undefined,
    ask: (request, signal) => {
      // One question at a time: answers would otherwise cross on one terminal.
      const asked = queue.then(() => ask(request, signal));
      // The gate reads each question's failure from `asked`; the queue only orders them.
      queue = asked.catch(() => {});
      return asked;
    },
  };
  return { person, cannotAsk: NO_TERMINAL, close: () => lines?.close() };
}
