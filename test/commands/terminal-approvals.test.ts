import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ElicitRequest } from '@modelcontextprotocol/client';
import { terminalOrigin } from '../../src/commands/run/terminal-approvals.js';
import { approvalRequest, type ApprovalQuestion } from '../../src/approvals/approval-question.js';
import type { AskDetail } from '../../src/approvals/approval-gate.js';

const asked: ApprovalQuestion = {
  tool: { name: 'delete_item' },
  calls: ['{"id":"a"}'],
  asker: 'script s-1 of this run',
  owner: 'this run',
};
const question = (): ElicitRequest => approvalRequest(asked);
/** What the gate hands every channel beside the form; the terminal reads only the form. */
const detail: AskDetail = {
  question: asked,
  waiting: () => asked.calls,
  identity: { principal: 'local', session: 'the client' },
  passOn: () => {},
};

describe("codemode-mcp run's terminal", () => {
  it('asks on the terminal, numbering the choices, and reads the answer typed after the question (not before)', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    let onShown: (() => void) | undefined;
    output.on('data', (chunk: Buffer) => {
      shown += chunk.toString();
      onShown?.();
    });
    /** Types `line` once the terminal shows `prompt` (the n-th time): what is typed before a question answers nothing. */
    const typeAt = (prompt: string, times: number, line: string) =>
      new Promise<void>((resolve) => {
        onShown = () => {
          if (shown.split(prompt).length - 1 < times) return;
          onShown = undefined;
          input.write(`${line}\n`);
          resolve();
        };
        onShown();
      });
    const { person, close } = terminalOrigin({ input, output });
    expect(person.accepts(question())).toBe(true);
    input.write('1\n');
    const answer = person.ask(question(), new AbortController().signal, 'a1b2c3-1', detail);
    await typeAt('Choose 1-4', 1, '2');
    expect(await answer).toEqual({ action: 'accept', content: { decision: 'allow-script' } });
    expect(shown).toContain('- delete_item({"id":"a"})');
    expect(shown).toContain('  2. Allow delete_item for the rest of this script');
    const owner = person.ask(question(), new AbortController().signal, 'a1b2c3-1', detail);
    await typeAt('Choose 1-4', 2, '3');
    await typeAt('Minutes [30]', 1, '15');
    expect(await owner).toEqual({ action: 'accept', content: { decision: 'allow-owner', minutes: 15 } });
    const other = person.ask(question(), new AbortController().signal, 'a1b2c3-1', detail);
    await typeAt('Choose 1-4', 3, 'yes');
    expect(await other).toEqual({ action: 'decline' });
    close();
  });

  it('asks no one without a terminal, so the fallback decides', () => {
    const { person, cannotAsk } = terminalOrigin(undefined);
    expect(person.accepts(question())).toBe(false);
    expect(cannotAsk).toBe("stdin is not a terminal, so codemode-mcp run can't ask a person");
  });
});
