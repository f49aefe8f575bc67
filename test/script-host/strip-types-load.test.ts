import { expect, test, vi } from 'vitest';

test('stripTypes before the stripper has loaded says so; once loaded (one load, however often asked) it strips', async () => {
  // A fresh copy of the module, whose stripper has not been loaded, whatever ran before in this worker.
  vi.resetModules();
  const { loadTypeStripper, stripTypes } = await import('../../engine/strip-types.js');
  expect(() => stripTypes('const a: number = 1')).toThrow('stripTypes was called before loadTypeStripper() settled');
  const first = loadTypeStripper();
  expect(loadTypeStripper()).toBe(first);
  await first;
  expect(stripTypes('const a: number = 1')).toEqual({ code: 'const a         = 1' });
});
