import { expect, test } from 'vitest';
import { loadTypeStripper, stripTypes } from '../../engine/strip-types.js';

// This file's own module state: the stripper has not been loaded here yet.
test('stripTypes before the stripper has loaded says so; once loaded (one load, however often asked) it strips', async () => {
  expect(() => stripTypes('const a: number = 1')).toThrow('stripTypes was called before loadTypeStripper() settled');
  const first = loadTypeStripper();
  expect(loadTypeStripper()).toBe(first);
  await first;
  expect(stripTypes('const a: number = 1')).toEqual({ code: 'const a         = 1' });
});
