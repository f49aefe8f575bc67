import { describe, expect, it } from 'vitest';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { ApprovalGate, type ApprovalCall, type Verdict } from '../../src/approvals/approval-gate.js';
import type { PersonChannel } from '../../src/approvals/approval-gate.js';

/** An origin whose client a test answers: each question waits until the test answers it. */
function askingOrigin(accepts = true) {
  const questions: Array<{ request: ElicitRequest; answer: (result: ElicitResult) => void; signal: AbortSignal }> = [];
  let asked: (() => void) | undefined;
  const origin: PersonChannel = {
    accepts: () => accepts,
    ask: (request, signal) =>
      new Promise((resolve, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
        questions.push({ request, answer: resolve, signal });
        asked?.();
      }),
  };
  const nextQuestion = () => new Promise<void>((resolve) => (asked = resolve));
  return { origin, questions, nextQuestion };
}

const logged: string[] = [];
const gateWith = (origin: PersonChannel, extra: Partial<ConstructorParameters<typeof ApprovalGate>[0]> = {}) =>
  new ApprovalGate({
    person: origin,
    timeoutMs: 600_000,
    fallback: 'refuse',
    owner: 'this session',
    log: (line) => logged.push(line),
    ...extra,
  });

const scriptEnd = new AbortController();
const call = (script: string, args: Record<string, unknown> = {}, tool = 'fs__delete_file'): ApprovalCall => ({
  script,
  tool: { name: tool, title: 'Delete File', annotations: { destructiveHint: true } },
  argsJson: JSON.stringify(args),
  signal: scriptEnd.signal,
  identity: { principal: 'local', session: 'stdio' },
});
const choose = (decision: string): ElicitResult => ({ action: 'accept', content: { decision } });
const accept = (decision: string, minutes?: number): ElicitResult => ({
  action: 'accept',
  content: { decision, ...(minutes !== undefined ? { minutes } : {}) },
});
const refusalOf = (verdict: Verdict) => (verdict.allowed ? undefined : verdict.refusal.message);

describe('the approval gate', () => {
  it('asks one question for calls of one tool that wait together, and the batch it allows goes on', async () => {
    const { origin, questions, nextQuestion } = askingOrigin();
    const gate = gateWith(origin);
    const asked = nextQuestion();
    const verdicts = Array.from({ length: 16 }, (_, i) => gate.approve(call('s1', { path: `${i}.txt` })));
    await asked;
    expect(questions).toHaveLength(1);
    expect(questions[0]!.request.params.message).toContain('16 calls of fs__delete_file ("Delete File")');
    expect(gate.waiting('s1')).toEqual(['fs__delete_file({"path":"0.txt"}) and 15 more calls of it']);
    questions[0]!.answer(accept('allow'));
    const settled = await Promise.all(verdicts);
    expect(settled.every((verdict) => verdict.allowed && verdict.by === 'person')).toBe(true);
    // A later call of the same tool, before the script calls another: in the batch, not asked.
    gate.noteCall('s1', 'fs__delete_file');
    expect((await gate.approve(call('s1'))).allowed).toBe(true);
    expect(questions).toHaveLength(1);
  });

  it('ends an allowed batch once the script has called another tool and none of the batch is out', async () => {
    const { origin, questions, nextQuestion } = askingOrigin();
    const gate = gateWith(origin);
    let asked = nextQuestion();
    const first = gate.approve(call('s1'));
    await asked;
    questions[0]!.answer(accept('allow'));
    const verdict = await first;
    gate.noteCall('s1', 'fs__list');
    if (verdict.allowed) verdict.release();
    asked = nextQuestion();
    void gate.approve(call('s1'));
    await asked;
    expect(questions).toHaveLength(2);
  });

  it("refuses every waiting call when a person denies, and the script's later calls of the tool without asking", async () => {
    const { origin, questions, nextQuestion } = askingOrigin();
    const gate = gateWith(origin);
    const asked = nextQuestion();
    const verdicts = [gate.approve(call('s1')), gate.approve(call('s1'))];
    await asked;
    questions[0]!.answer({ action: 'decline' });
    expect((await Promise.all(verdicts)).map(refusalOf)).toEqual([
      'APPROVAL_DENIED: fs__delete_file was refused: a person denied it. Nothing was sent; it is safe to retry later.',
      'APPROVAL_DENIED: fs__delete_file was refused: a person denied it. Nothing was sent; it is safe to retry later.',
    ]);
    expect(refusalOf(await gate.approve(call('s1')))).toMatch(/a person denied its calls earlier in this script/);
    expect(questions).toHaveLength(1);
  });

  it('allows a tool for the rest of one script, and asks again for another script', async () => {
    const { origin, questions, nextQuestion } = askingOrigin();
    const gate = gateWith(origin);
    let asked = nextQuestion();
    const first = gate.approve(call('s1'));
    await asked;
    questions[0]!.answer(accept('allow-script'));
    expect((await first).allowed).toBe(true);
    gate.noteCall('s1', 'fs__other');
    expect((await gate.approve(call('s1'))).allowed).toBe(true);
    asked = nextQuestion();
    void gate.approve(call('s2'));
    await asked;
    expect(questions).toHaveLength(2);
  });

  it('allows a tool for the owner for the minutes chosen, by its clock', async () => {
    const { origin, questions, nextQuestion } = askingOrigin();
    let now = 0;
    const gate = gateWith(origin, { now: () => now });
    let asked = nextQuestion();
    const first = gate.approve(call('s1'));
    await asked;
    questions[0]!.answer(accept('allow-owner', 5));
    await first;
    now = 5 * 60_000 - 1;
    expect((await gate.approve(call('s2'))).allowed).toBe(true);
    now = 5 * 60_000;
    asked = nextQuestion();
    void gate.approve(call('s3'));
    await asked;
    expect(questions).toHaveLength(2);
  });

  it('gives a client that cannot ask the fallback: refused by default, sent when approvalFallback allows', async () => {
    const { origin, questions } = askingOrigin(false);
    expect(refusalOf(await gateWith(origin).approve(call('s1')))).toBe(
      `APPROVAL_UNAVAILABLE: fs__delete_file was refused: its calls need a person's approval and the MCP client can't ask a person ` +
        `(it declared no elicitation); the server's approvalFallback is "refuse". Nothing was sent; it is safe to retry later.`,
    );
    const allowed = await gateWith(origin, { fallback: 'allow' }).approve(call('s1'));
    expect(allowed).toMatchObject({ allowed: true, by: 'fallback' });
    expect(questions).toHaveLength(0);
  });

  it('refuses the calls of a question no one answers within approvalTimeoutMs', async () => {
    const { origin } = askingOrigin();
    const verdict = await gateWith(origin, { timeoutMs: 1 }).approve(call('s1'));
    expect(verdict).toMatchObject({ allowed: false, by: 'timeout' });
    expect(refusalOf(verdict)).toMatch(
      /^APPROVAL_TIMED_OUT: .*no person answered within 1 ms \(the server's approvalTimeoutMs\)/,
    );
  });

  it('shows the arguments cut to a readable size, with the full size', async () => {
    const { origin, questions, nextQuestion } = askingOrigin();
    const asked = nextQuestion();
    void gateWith(origin).approve(call('s1', { text: 'x'.repeat(10_000) }));
    await asked;
    expect(questions[0]!.request.params.message).toMatch(/x…\s\(9\.8 KiB in all\)\)/);
  });

  it('reviews the calls of a batch one by one when the person asks to: each answer decides its own call', async () => {
    const { origin, questions, nextQuestion } = askingOrigin();
    const gate = gateWith(origin);
    let asked = nextQuestion();
    const verdicts = ['a', 'b', 'c'].map((id) => gate.approve(call('s1', { id })));
    await asked;
    expect(questions[0]!.request.params.message).toContain('3 calls of fs__delete_file');
    for (const [i, answer] of [choose('review'), choose('allow'), { action: 'decline' as const }].entries()) {
      asked = nextQuestion();
      questions[i]!.answer(answer);
      await asked;
    }
    expect(questions[3]!.request.params.message).toContain('- fs__delete_file({"id":"c"})');
    expect(gate.waiting('s1')).toEqual(['fs__delete_file({"id":"c"})']);
    questions[3]!.answer(choose('allow'));
    expect((await Promise.all(verdicts)).map((verdict) => verdict.allowed)).toEqual([true, false, true]);
    // A denial in review decides that call alone: the next call of the tool is asked about.
    asked = nextQuestion();
    void gate.approve(call('s1', { id: 'd' }));
    await asked;
    expect(questions).toHaveLength(5);
  });

  // Regression (issue 45): in a review, an answer of "review" to a one-call question counted as allow.
  it('sends nothing in a review on an answer that is not an allow: "review", malformed, missing or unknown', async () => {
    const { origin, questions, nextQuestion } = askingOrigin();
    const gate = gateWith(origin);
    const notAllows: ElicitResult[] = [
      choose('review'),
      { action: 'accept' },
      { action: 'accept', content: {} },
      choose('yes'),
      { action: 'accept', content: { decision: 'allow-owner', minutes: 0 } },
      { action: 'cancel' },
      { action: 'decline' },
    ];
    let asked = nextQuestion();
    const verdicts = notAllows.map((_, i) => gate.approve(call('s1', { id: String(i) })));
    await asked;
    expect(questions[0]!.request.params.message).toContain(`${notAllows.length} calls of fs__delete_file`);
    asked = nextQuestion();
    questions[0]!.answer(choose('review'));
    for (const [i, answer] of notAllows.entries()) {
      await asked;
      expect(questions[i + 1]!.request.params.message).toContain(`- fs__delete_file({"id":"${i}"})`);
      asked = i + 1 < notAllows.length ? nextQuestion() : asked;
      questions[i + 1]!.answer(answer);
    }
    const settled = await Promise.all(verdicts);
    expect(settled.map((verdict) => verdict.allowed)).toEqual(notAllows.map(() => false));
    expect(settled.map(refusalOf)[0]).toBe(
      'APPROVAL_DENIED: fs__delete_file was refused: the answer to its question allowed nothing ' +
        `(its decision was "review", which a question about one call does not offer). Nothing was sent; it is safe to retry later.`,
    );
  });

  // Regression (issue 46): a page shows the calls that joined after its question was asked, and offers
  // their review; the answer was read against the calls of the question alone and refused them all.
  it('reads an answer against the calls waiting when it came: a review of calls that joined after the question', async () => {
    const { origin, questions, nextQuestion } = askingOrigin();
    const gate = gateWith(origin);
    let asked = nextQuestion();
    const first = gate.approve(call('s1', { id: 'a' }));
    await asked;
    expect(questions[0]!.request.params.message).toContain('fs__delete_file({"id":"a"})');
    const joined = gate.approve(call('s1', { id: 'b' }));
    expect(gate.waiting('s1')).toEqual(['fs__delete_file({"id":"a"}) and 1 more calls of it']);
    for (const [i, answer] of [choose('review'), choose('allow'), choose('deny')].entries()) {
      asked = nextQuestion();
      questions[i]!.answer(answer);
      if (i < 2) await asked;
    }
    expect(questions.map((question) => question.request.params.message.includes('"id":"b"'))).toEqual([false, false, true]);
    expect((await Promise.all([first, joined])).map((verdict) => verdict.allowed)).toEqual([true, false]);
  });

  it('sends nothing on a first answer that is not an allow, and refuses every call it was about', async () => {
    for (const answer of [
      choose('review'),
      { action: 'accept', content: { decision: 'allow-owner', minutes: Number.NaN } },
      { action: 'accept', content: [] },
      { action: 'unknown' },
      null,
    ] as unknown as ElicitResult[]) {
      const { origin, questions, nextQuestion } = askingOrigin();
      const asked = nextQuestion();
      const verdict = gateWith(origin).approve(call('s1'));
      await asked;
      questions[0]!.answer(answer);
      expect(refusalOf(await verdict), JSON.stringify(answer)).toMatch(
        /^APPROVAL_DENIED: fs__delete_file was refused: the answer to its question allowed nothing \(/,
      );
    }
  });
});
