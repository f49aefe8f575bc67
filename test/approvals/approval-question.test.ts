// What a person reads in an approval question must be what is true (issue 45): the tool's name,
// title and annotations and the calls' arguments come from an upstream and a script, and none of
// their characters may add a line to the question, recolour it or reorder it.
import { describe, expect, test } from 'vitest';
import { approvalRequest, describeCall } from '../../src/approvals/approval-question.js';
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
