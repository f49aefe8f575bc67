/**
 * When a reused child's reset is written: the pool asks for it as the script's ending is read,
 * and the answer that ending makes (to the client, some promises later) must not wait behind it.
 */
import type { ChildProcess } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { ReusedChild } from '../support/reused-child.js';

const children: ReusedChild[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) await child.close();
});

it("writes a reset after the turn that read the script's ending: what that ending answers goes first", async () => {
  const order: string[] = [];
  // As the pool does: the child is reset for its owner's next script as its ending is read.
  const reused = new ReusedChild((ended) => {
    ended.reset();
    // The answer the server makes from the ending, some promises on.
    void (async () => {
      for (let hop = 0; hop < 20; hop++) await Promise.resolve();
      order.push('answer');
    })();
  });
  children.push(reused);
  const stdin = (reused.child as unknown as { process: ChildProcess }).process.stdin!;
  const write = stdin.write.bind(stdin) as (chunk: Buffer, done?: (error?: Error | null) => void) => boolean;
  stdin.write = ((chunk: Buffer, done?: (error?: Error | null) => void) => {
    if (chunk.toString('latin1').includes('"t":"reset"')) order.push('reset');
    return write(chunk, done);
  }) as typeof stdin.write;
  expect(await reused.run('return 1')).toMatchObject({ status: 'finished', value: '1' });
  await reused.child.ready;
  expect(order).toEqual(['answer', 'reset']);
  // The reset child runs the next script.
  expect(await reused.run('return 2')).toMatchObject({ status: 'finished', value: '2' });
});
