import { describe, expect, it } from 'vitest';
import { CallSender, checkArgs } from '../../../engine/host/calls.js';
import { HOST_REFUSED } from '../../../common/seam.js';
import { CALL_ARGS_MAX_BYTES, CALL_ARGS_MAX_VALUES } from '../../../protocol/contract.js';
import { recordingOutlet } from './recording-outlet.js';

describe('a call sent by the engine', () => {
  it('goes out at once with the next id', () => {
    const { outlet, sent, flushes } = recordingOutlet();
    const calls = new CallSender(outlet);
    expect(calls.send('a.b', '{}')).toBe(1);
    expect(calls.sendApi('resources.read', '{"uri":"x"}')).toBe(2);
    expect(sent).toEqual([
      { t: 'call', id: 1, tool: 'a.b', args: '{}' },
      { t: 'call', id: 2, tool: 'resources.read', args: '{"uri":"x"}', api: true },
    ]);
    expect(flushes()).toBe(2);
  });

  it('is told, not sent, when its arguments are past a cap', () => {
    const { outlet, sent } = recordingOutlet();
    const tooMany = JSON.stringify(Array.from({ length: CALL_ARGS_MAX_VALUES + 1 }, () => 0));
    expect(new CallSender(outlet).send('a.b', tooMany)).toBe(`args hold more than ${CALL_ARGS_MAX_VALUES} values, past the cap`);
    expect(sent).toEqual([]);
  });

  it('refuses a resources call the API does not have', () => {
    const { outlet, sent } = recordingOutlet();
    expect(new CallSender(outlet).sendApi('delete', '{}')).toBe(HOST_REFUSED);
    expect(sent).toEqual([]);
  });

  it('still gets an id, but sends nothing, once the script has ended', () => {
    const { outlet, sent } = recordingOutlet(true);
    expect(new CallSender(outlet).send('a.b', '{}')).toBe(1);
    expect(sent).toEqual([]);
  });
});

describe('checkArgs', () => {
  it('is empty within the caps and names the byte cap past it', () => {
    expect(checkArgs('{"a":1}')).toBe('');
    const big = JSON.stringify('x'.repeat(CALL_ARGS_MAX_BYTES));
    expect(checkArgs(big)).toBe(`args are ${big.length} bytes of JSON, past the cap of ${CALL_ARGS_MAX_BYTES}`);
  });
});
