import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { GUEST_GLOBALS } from '../../src/typecheck/guest-globals.js';

describe('docs/scripts.md', () => {
  test('shows the guest globals exactly as the type check declares them', () => {
    const doc = readFileSync(new URL('../../docs/scripts.md', import.meta.url), 'utf8');
    const shown = /The globals, as the check declares them[^\n]*\n[^\n]*\n\n```ts\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(shown).toBe(GUEST_GLOBALS);
  });
});
