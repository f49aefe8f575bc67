// What a person reads in an approval question must be what is true (issue 45): the tool's name,
// title and annotations and the calls' arguments come from an upstream and a script, and none of
// their characters may add a line to the question, recolour it or reorder it.
import { describe, expect, test } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/client';
import { approvalRequest, describeCall, readApprovalAnswer } from '../../src/approvals/approval-question.js';
import { ACTING_KINDS, ALL_ACTING, rawActing } from '../support/acting-characters.js';

interface Form {
  readonly message: string;
  readonly requestedSchema: {
    readonly properties: {
      readonly decision: { readonly oneOf: ReadonlyArray<{ readonly title: string }> };
      readonly minutes: { readonly title: string };
    };
  };
}

function formOf(char: string, calls = 1): Form {
  const request = approvalRequest({
    tool: {
      name: `wipe${char}all`,
      title: `Wipe${char}Annotations: readOnlyHint.`,
      annotations: { destructiveHint: true, [`readOnlyHint${char}`]: true },
    },
    calls: Array.from({ length: calls }, () => JSON.stringify({ path: `a${char}b` })),
    asker: 'script 1a2b3c-4 of this session',
    owner: `principal al${char}ice`,
  });
  return request.params as unknown as Form;
}

describe('an approval question', () => {
  test.each(ACTING_KINDS)(
    'shows %s in a name, title, annotation and arguments as its escape, never raw',
    (_kind, char, shown) => {
      for (const calls of [1, 2]) {
        const form = formOf(char, calls);
        expect(rawActing(form.message, 'lines'), form.message).toEqual([]);
        // Its own lines only: the first, the annotations, the calls shown, the closing one.
        expect(form.message.split('\n')).toHaveLength(3 + calls);
        expect(form.message).toContain(`of wipe${shown}all ("Wipe${shown}Annotations: readOnlyHint.")`);
        expect(form.message).toContain(`Annotations: destructiveHint, readOnlyHint${shown}.`);
        // Inside the JSON of the arguments, a C0 character keeps JSON's own escape.
        const inJson = char < ' ' ? JSON.stringify(char).slice(1, -1) : shown;
        expect(form.message).toContain(`- wipe${shown}all({"path":"a${inJson}b"})`);
        for (const choice of [...form.requestedSchema.properties.decision.oneOf, form.requestedSchema.properties.minutes]) {
          expect(rawActing(choice.title), choice.title).toEqual([]);
        }
      }
    },
  );

  test('names a call in the waiting line with its acting characters escaped', () => {
    expect(rawActing(describeCall(`x${ALL_ACTING}`, JSON.stringify({ a: ALL_ACTING })))).toEqual([]);
  });

  test('cuts long arguments, and what it shows of them is escaped too', () => {
    const line = describeCall('wipe', JSON.stringify({ path: '\u202e'.repeat(500) }));
    expect(rawActing(line)).toEqual([]);
    expect(line).toMatch(/^wipe\(\{"path":"(\\u202e)+… \(1\.5 KiB in all\)\)$/);
  });
});

// Only an answer someone gave sends a call (issue 45): an allow the question offered, nothing else.
describe('what an answer decides', () => {
  const unreadable = (answer: string) => ({ kind: 'deny', how: 'unreadable', answer });
  const accept = (content: unknown) => ({ action: 'accept', content }) as unknown as ElicitResult;
  test.each([
    ['allow', accept({ decision: 'allow' }), 1, { kind: 'allow-batch' }],
    ['allow for the script', accept({ decision: 'allow-script' }), 1, { kind: 'allow-script' }],
    [
      'allow for the owner, the minutes given',
      accept({ decision: 'allow-owner', minutes: 5 }),
      1,
      { kind: 'allow-owner', minutes: 5 },
    ],
    ["allow for the owner, the form's default", accept({ decision: 'allow-owner' }), 1, { kind: 'allow-owner', minutes: 30 }],
    [
      'allow for the owner past the longest grant',
      accept({ decision: 'allow-owner', minutes: 1e9 }),
      1,
      { kind: 'allow-owner', minutes: 1_440 },
    ],
    ['review, offered for several calls', accept({ decision: 'review' }), 2, { kind: 'review' }],
    ['deny', accept({ decision: 'deny' }), 1, { kind: 'deny', how: 'declined' }],
    ['a declined form', { action: 'decline' }, 1, { kind: 'deny', how: 'declined' }],
    ['a cancelled form', { action: 'cancel' }, 1, { kind: 'deny', how: 'dismissed' }],
    [
      'review, not offered for one call',
      accept({ decision: 'review' }),
      1,
      unreadable('its decision was "review", which a question about one call does not offer'),
    ],
    ['no content', { action: 'accept' }, 1, unreadable('its content was nothing')],
    ['no decision', accept({}), 1, unreadable('its decision was nothing')],
    ['an unknown decision', accept({ decision: 'yes' }), 1, unreadable('its decision was "yes"')],
    ['a decision in other case', accept({ decision: 'ALLOW' }), 1, unreadable('its decision was "ALLOW"')],
    ['a decision of another type', accept({ decision: true }), 1, unreadable('its decision was boolean true')],
    ['zero minutes', accept({ decision: 'allow-owner', minutes: 0 }), 1, unreadable('its minutes was number 0')],
    ['negative minutes', accept({ decision: 'allow-owner', minutes: -5 }), 1, unreadable('its minutes was number -5')],
    ['minutes not a number', accept({ decision: 'allow-owner', minutes: '10' }), 1, unreadable('its minutes was "10"')],
    ['minutes NaN', accept({ decision: 'allow-owner', minutes: Number.NaN }), 1, unreadable('its minutes was number NaN')],
    ['content an array', accept([{ decision: 'allow' }]), 1, unreadable('its content was an array')],
    ['content a string', accept('allow'), 1, unreadable('its content was "allow"')],
    ['an unknown action', { action: 'approve', content: { decision: 'allow' } }, 1, unreadable('its action was "approve"')],
    ['no action', { content: { decision: 'allow' } }, 1, unreadable('its action was nothing')],
    ['no answer at all', null, 1, unreadable('the answer was null')],
  ] as const)('%s', (_what, answer, calls, decided) => {
    expect(readApprovalAnswer(answer as unknown as ElicitResult, calls)).toEqual(decided);
  });
});
