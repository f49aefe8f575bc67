import { describe, expect, test } from 'vitest';
import type { Offered } from '../../src/upstream/passthrough/passthrough.js';
import { PassthroughChanges } from '../../src/upstream/passthrough/passthrough-changes.js';

const NONE: Offered = { prompts: false, resources: false, subscribe: false, completions: false };
const PROMPTS: Offered = { ...NONE, prompts: true };

describe('PassthroughChanges', () => {
  test('the first take records the states; only a change after it is news', () => {
    const changes = new PassthroughChanges();
    expect(changes.take([{ name: 'a', serving: false, offered: undefined }], NONE)).toEqual({
      servingChanged: ['a'],
      notices: [],
    });
    expect(changes.take([{ name: 'a', serving: false, offered: undefined }], NONE)).toEqual({ servingChanged: [], notices: [] });
  });

  test('an upstream offering prompts that starts or stops serving changes the prompt list', () => {
    const changes = new PassthroughChanges();
    changes.take([{ name: 'a', serving: true, offered: PROMPTS }], PROMPTS);
    expect(changes.take([{ name: 'a', serving: false, offered: PROMPTS }], PROMPTS)).toEqual({
      servingChanged: ['a'],
      notices: [{ kind: 'prompts_changed' }],
    });
  });

  test('a change in what the upstreams offer at all is a notice, after the first', () => {
    const changes = new PassthroughChanges();
    changes.take([], NONE);
    expect(changes.take([{ name: 'a', serving: true, offered: NONE }], { ...NONE, completions: true }).notices).toEqual([
      { kind: 'offered_changed' },
    ]);
  });
});
