import { describe, expect, it } from 'vitest';
import { CHILD_MESSAGES, ERROR_MAX_CHARS, VALUE_MAX_CHARS } from '../../protocol/contract.js';
import { checkShape } from '../../protocol/shape.js';

const none = Buffer.alloc(0);
const check = (message: Record<string, unknown>, payload: Buffer = none) =>
  checkShape(CHILD_MESSAGES, message, payload, 'FRAME_UNDECODABLE');

describe("a child message's shape", () => {
  it('takes each kind of message as the child sends it', () => {
    expect(check({ t: 'ready', v: 7, prelude: 'snapshot' }).ok).toBe(true);
    expect(check({ t: 'call', id: 1, tool: 'echo', args: '{}' }).ok).toBe(true);
    expect(check({ t: 'call', id: 2, tool: 'resources.list', args: '{}', api: true }).ok).toBe(true);
    expect(check({ t: 'out', text: 'hello\n' }).ok).toBe(true);
    expect(check({ t: 'notify', payload: '{"step":1}' }).ok).toBe(true);
    expect(check({ t: 'show', blocks: '[]' }).ok).toBe(true);
    expect(check({ t: 'end', status: 'failed', error: 'Error: no', unsent: '{}', read: 0 }).ok).toBe(true);
  });

  it('refuses as undecodable a kind it does not know, a missing field, or a field of the wrong type', () => {
    for (const message of [
      { t: 'hello' },
      { t: 'toString' },
      { text: 'no kind' },
      { t: 'ready', v: '7', prelude: 'snapshot' },
      { t: 'ready', v: 7, prelude: 'compiled' },
      { t: 'call', id: 0, tool: 'echo', args: '{}' },
      { t: 'call', id: 1.5, tool: 'echo', args: '{}' },
      { t: 'call', id: 1, tool: 'echo' },
      { t: 'call', id: 1, tool: 'echo', args: '{}', api: 1 },
      { t: 'out', text: 5 },
      { t: 'end', status: 'done' },
      { t: 'end', status: 'finished', read: -1 },
      { t: 'end', status: 'finished', error: 'x'.repeat(ERROR_MAX_CHARS + 1) },
      // The value is the payload, never a field.
      { t: 'end', status: 'finished', value: '"a field"' },
    ]) {
      expect(check(message)).toEqual({ ok: false, refusal: 'FRAME_UNDECODABLE' });
    }
  });

  it("refuses a field past its cap, or not the JSON it must be, with the field's own refusal", () => {
    expect(check({ t: 'out', text: 'x'.repeat(64 * 1024 + 1) })).toEqual({ ok: false, refusal: 'OUTPUT_PAST_BATCH' });
    expect(check({ t: 'notify', payload: 'not json' })).toEqual({ ok: false, refusal: 'NOTIFY_INVALID' });
    expect(check({ t: 'notify', payload: JSON.stringify('x'.repeat(64 * 1024)) })).toEqual({
      ok: false,
      refusal: 'NOTIFY_INVALID',
    });
  });

  it('takes a payload only on an ending, as its value, within the cap and JSON', () => {
    expect(check({ t: 'out', text: 'x' }, Buffer.from('"a payload"'))).toEqual({ ok: false, refusal: 'FRAME_UNDECODABLE' });
    expect(check({ t: 'end', status: 'finished' }, Buffer.from('[1,2]'))).toEqual({
      ok: true,
      message: { t: 'end', status: 'finished', value: '[1,2]' },
    });
    expect(check({ t: 'end', status: 'finished' }, Buffer.from('not json'))).toEqual({ ok: false, refusal: 'VALUE_NOT_JSON' });
    const past = Buffer.from(JSON.stringify('x'.repeat(VALUE_MAX_CHARS + 1024)));
    expect(check({ t: 'end', status: 'finished' }, past)).toEqual({ ok: false, refusal: 'VALUE_TOO_LARGE' });
  });
});
