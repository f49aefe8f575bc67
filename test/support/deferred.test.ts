import { describe, expect, test } from 'vitest';
import { deferred } from '../../src/support/deferred.js';

describe('a deferred promise', () => {
  test('resolves with the first value it is given, and later calls change nothing', async () => {
    const mark = deferred<string>();
    mark.resolve('first');
    mark.resolve('second');
    mark.reject(new Error('late'));
    await expect(mark.promise).resolves.toBe('first');
  });

  test('rejects with the reason it is given', async () => {
    const mark = deferred();
    mark.reject(new Error('gone'));
    await expect(mark.promise).rejects.toThrow('gone');
  });
});
