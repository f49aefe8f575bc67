// What the approval gate hands a channel beside the client's form (issue 46): the question as data,
// the calls waiting on it now, and a line for the model to pass on, said in the script's answers
// until the question is answered; an urgent line tells whoever watches the script at once.
import { describe, expect, it } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/client';
import { ApprovalGate, type AskDetail, type PersonChannel } from '../../src/approvals/approval-gate.js';

function channel() {
  const asked: Array<{ detail: AskDetail; answer: (result: ElicitResult) => void }> = [];
  let onAsked: (() => void) | undefined;
  const person: PersonChannel = {
    accepts: () => true,
    ask: (_request, signal, _script, detail) =>
      new Promise((resolve, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
        asked.push({ detail, answer: resolve });
        onAsked?.();
      }),
  };
  return { person, asked, nextAsked: () => new Promise<void>((resolve) => (onAsked = resolve)) };
}

const gateWith = (person: PersonChannel) =>
  new ApprovalGate({ person, timeoutMs: 600_000, fallback: 'refuse', owner: 'this session', log: () => {} });

const call = (script: string, path: string) => ({
  script,
  tool: { name: 'fs__delete_file', server: 'fs', upstreamName: 'delete_file' },
  argsJson: JSON.stringify({ path }),
  signal: new AbortController().signal,
  identity: { principal: 'alice', session: 'stdio' },
});

describe("the approval gate's detail for a channel beside the form", () => {
  it('carries the question, whose principal, and the calls waiting now, later ones of the batch included', async () => {
    const { person, asked, nextAsked } = channel();
    const gate = gateWith(person);
    const question = nextAsked();
    const first = gate.approve(call('s1', 'a.txt'));
    await question;
    const late = gate.approve(call('s1', 'b.txt'));
    const { detail } = asked[0]!;
    expect(detail.question).toMatchObject({ tool: { name: 'fs__delete_file', server: 'fs' }, calls: ['{"path":"a.txt"}'] });
    expect(detail.identity.principal).toBe('alice');
    expect(detail.waiting()).toEqual(['{"path":"a.txt"}', '{"path":"b.txt"}']);
    asked[0]!.answer({ action: 'accept', content: { decision: 'allow' } });
    expect((await first).allowed && (await late).allowed).toBe(true);
  });

  it("puts the line to pass on in the script's waiting lines until the answer, and tells of an urgent one", async () => {
    const { person, asked, nextAsked } = channel();
    const gate = gateWith(person);
    const urgent: string[] = [];
    gate.onUrgent((script) => urgent.push(script));
    const question = nextAsked();
    const verdict = gate.approve(call('s2', 'a.txt'));
    await question;
    asked[0]!.detail.passOn('ask the user to open http://127.0.0.1:1/approve/x, then call wait', true);
    expect(urgent).toEqual(['s2']);
    expect(gate.waiting('s2')).toEqual([
      'fs__delete_file({"path":"a.txt"}) — ask the user to open http://127.0.0.1:1/approve/x, then call wait',
    ]);
    asked[0]!.detail.passOn('they may instead open the page', false);
    expect(urgent).toEqual(['s2']);
    asked[0]!.answer({ action: 'accept', content: { decision: 'deny' } });
    expect((await verdict).allowed).toBe(false);
    expect(gate.waiting('s2')).toEqual([]);
  });
});
