import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ElicitRequest } from '@modelcontextprotocol/client';
import { terminalOrigin } from '../../src/commands/run/terminal-approvals.js';
import { approvalRequest, type ApprovalQuestion } from '../../src/approvals/approval-question.js';
import type { AskDetail } from '../../src/approvals/approval-gate.js';
import { ACTING_KINDS, ALL_ACTING, rawActing } from '../support/acting-characters.js';

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

/** A terminal a test types on: what it has shown, and a line typed once a prompt has shown (the n-th time). */
function typedTerminal() {
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
  return { input, output, typeAt, shown: () => shown };
}

describe("codemode-mcp run's terminal", () => {
  it('asks on the terminal, numbering the choices, and reads the answer typed after the question (not before)', async () => {
    const { input, output, typeAt, shown } = typedTerminal();
    const { person, close } = terminalOrigin({ input, output });
    expect(person.accepts(question())).toBe(true);
    input.write('1\n');
    const answer = person.ask(question(), new AbortController().signal, 'a1b2c3-1', detail);
    await typeAt('Choose 1-4', 1, '2');
    expect(await answer).toEqual({ action: 'accept', content: { decision: 'allow-script' } });
    expect(shown()).toContain('- delete_item({"id":"a"})');
    expect(shown()).toContain('  2. Allow delete_item for the rest of this script');
    const owner = person.ask(question(), new AbortController().signal, 'a1b2c3-1', detail);
    await typeAt('Choose 1-4', 2, '3');
    await typeAt('Minutes [30]', 1, '15');
    expect(await owner).toEqual({ action: 'accept', content: { decision: 'allow-owner', minutes: 15 } });
    const other = person.ask(question(), new AbortController().signal, 'a1b2c3-1', detail);
    await typeAt('Choose 1-4', 3, 'yes');
    expect(await other).toEqual({ action: 'decline' });
    close();
  });

  it('shows a question whose tool and arguments carry every acting character with each one escaped, on its own lines only', async () => {
    const { input, output, typeAt, shown } = typedTerminal();
    const { person, close } = terminalOrigin({ input, output });
    const hostile = approvalRequest({
      tool: { name: `wipe${ALL_ACTING}`, title: `Wipe${ALL_ACTING}`, annotations: { [`readOnlyHint${ALL_ACTING}`]: true } },
      calls: [JSON.stringify({ path: ALL_ACTING })],
      asker: 'script s-1 of this run',
      owner: 'this run',
    });
    const answer = person.ask(hostile, new AbortController().signal, 's-1', detail);
    await typeAt('Choose 1-4', 1, '4');
    expect(await answer).toEqual({ action: 'accept', content: { decision: 'deny' } });
    expect(rawActing(shown(), 'lines')).toEqual([]);
    // A blank line, the question's four lines, four choices, the prompt.
    expect(shown().split('\n')).toHaveLength(10);
    for (const [, , escape] of ACTING_KINDS) expect(shown()).toContain(escape);
    close();
  });

  it('escapes what acts in any question it is handed, not only in the ones approvalRequest wrote', async () => {
    const { input, output, typeAt, shown } = typedTerminal();
    const { person, close } = terminalOrigin({ input, output });
    const raw = {
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: `first line\nsecond ${ALL_ACTING.replace('\n', '')}`,
        requestedSchema: {
          type: 'object',
          properties: { decision: { type: 'string', oneOf: [{ const: 'allow', title: `Allow ${ALL_ACTING}` }] } },
        },
      },
    } as unknown as ElicitRequest;
    const answer = person.ask(raw, new AbortController().signal, 's-1', detail);
    await typeAt('Choose 1-1', 1, '9');
    expect(await answer).toEqual({ action: 'decline' });
    expect(rawActing(shown(), 'lines')).toEqual([]);
    expect(shown().split('\n')).toHaveLength(5);
    close();
  });

  it('answers only with a choice the question offered and minutes that are minutes; anything else is a denial', async () => {
    const { input, output, typeAt } = typedTerminal();
    const { person, close } = terminalOrigin({ input, output });
    const two = approvalRequest({
      tool: { name: 'delete_item' },
      calls: ['{"id":"a"}', '{"id":"b"}'],
      asker: 'script s-1 of this run',
      owner: 'this run',
    });
    const typed: Array<[request: ElicitRequest, prompt: string, lines: string[], answer: unknown]> = [
      [two, 'Choose 1-5', ['5'], { action: 'accept', content: { decision: 'review' } }],
      [question(), 'Choose 1-4', ['5'], { action: 'decline' }],
      [question(), 'Choose 1-4', ['0'], { action: 'decline' }],
      [question(), 'Choose 1-4', ['1.0'], { action: 'decline' }],
      [question(), 'Choose 1-4', ['3', '0'], { action: 'decline' }],
      [question(), 'Choose 1-4', ['3', 'ten'], { action: 'decline' }],
      [question(), 'Choose 1-4', ['3', ''], { action: 'accept', content: { decision: 'allow-owner', minutes: 30 } }],
    ];
    const seen = new Map<string, number>();
    for (const [request, prompt, lines, expected] of typed) {
      const answer = person.ask(request, new AbortController().signal, 's-1', detail);
      const prompts = [prompt, 'Minutes [30]'];
      for (const [i, line] of lines.entries()) {
        const times = (seen.get(prompts[i]!) ?? 0) + 1;
        seen.set(prompts[i]!, times);
        await typeAt(prompts[i]!, times, line);
      }
      expect(await answer, lines.join(' then ')).toEqual(expected);
    }
    close();
  });

  it('asks no one without a terminal, so the fallback decides', () => {
    const { person, cannotAsk } = terminalOrigin(undefined);
    expect(person.accepts(question())).toBe(false);
    expect(cannotAsk).toBe("stdin is not a terminal, so codemode-mcp run can't ask a person");
  });
});
