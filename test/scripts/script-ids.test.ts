import { describe, expect, it } from 'vitest';
import { PROCESS_TAG, foreignInstance, fromEarlierRun, scriptIdPrefix } from '../../src/scripts/script-ids.js';

const other = PROCESS_TAG === 'abcdef' ? '123456' : 'abcdef';

describe('script ids', () => {
  it('start with the instance and the process tag, or the tag alone without an instance', () => {
    expect(scriptIdPrefix('a')).toBe(`a.${PROCESS_TAG}-`);
    expect(scriptIdPrefix(undefined)).toBe(`${PROCESS_TAG}-`);
  });

  it.each([
    ['b.abcdef-4', 'a'],
    ['b.abcdef-4', undefined],
    ['blue-2.abcdef-4.k3x9', 'a'],
    ['b.abcdef-call2.k3x9', 'a'],
  ])('answer %s reaching instance %s as another instance gone, its ending unknown, and say to run it again', (id, self) => {
    const answer = foreignInstance(id, self)!;
    expect(answer).toContain(`script "${id}" was started on instance "${id.split('.')[0]}", which is gone or unreachable`);
    expect(answer).toContain(self !== undefined ? `this is instance "${self}"` : 'this is an instance without --instance-id');
    expect(answer).toMatch(/how the script ended is unknown.*Run the script again\.$/);
  });

  it.each([
    [`a.${PROCESS_TAG}-4`, 'a'],
    [`a.${other}-4`, 'a'],
    [`${other}-4`, 'a'],
    ['a.b', 'a'],
    ['no-such-script', undefined],
  ])('leave %s on instance %s to the unknown-script answer', (id, self) => {
    expect(foreignInstance(id, self)).toBeUndefined();
  });

  it("tell this instance's earlier run from a typo and from this run", () => {
    expect(fromEarlierRun(`a.${other}-4`, 'a')).toBe(true);
    expect(fromEarlierRun(`a.${other}-4.k3x9`, 'a')).toBe(true);
    expect(fromEarlierRun(`a.${other}-call2.k3x9`, 'a')).toBe(true);
    expect(fromEarlierRun(`${other}-4`, undefined)).toBe(true);
    expect(fromEarlierRun(`a.${PROCESS_TAG}-4`, 'a')).toBe(false);
    expect(fromEarlierRun(`${other}-4`, 'a')).toBe(false);
    expect(fromEarlierRun('a.typo', 'a')).toBe(false);
  });
});
