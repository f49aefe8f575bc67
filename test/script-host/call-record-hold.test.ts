import { describe, expect, it } from 'vitest';
import { CallRecord } from '../../src/script-host/call-record.js';

describe("a call's timeout while it waits for approval", () => {
  it('does not run while the call is held, and starts afresh once it is released', async () => {
    const timedOut: number[] = [];
    let next: () => void = () => {};
    const record = new CallRecord(1, (call) => {
      timedOut.push(call.id);
      next();
    });
    const timeout = () => new Promise<void>((resolve) => (next = resolve));
    const held = record.opened(1, 'delete_item', '{}');
    record.holdTimeout(held);
    let due = timeout();
    record.opened(2, 'list_items', '{}');
    await due;
    expect(timedOut).toEqual([2]);
    due = timeout();
    record.releaseTimeout(held);
    await due;
    expect(timedOut).toEqual([2, 1]);
    record.cancelOpen();
  });

  it('counts the calls a person denied apart from the other refusals', () => {
    const record = new CallRecord(60_000, () => {});
    const denied = record.opened(1, 'delete_item', '{}');
    const refused = record.opened(2, 'other', '{}');
    record.closed(denied);
    record.closed(refused);
    record.answerSent(denied, true, true);
    record.answerSent(refused, true);
    record.noteAnswersRead(2);
    expect(record.summary()).toMatchObject({ answered: 0, refused: 2, deniedByPerson: 1 });
    record.cancelOpen();
  });
});
