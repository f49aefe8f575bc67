import { afterEach, describe, expect, test } from 'vitest';
import { UpstreamHub } from '../../src/upstream/hub.js';
import { childPidsOf } from '../support/processes.js';
import { fixture } from './specs.js';

let hub: UpstreamHub | undefined;

afterEach(async () => {
  await hub?.close();
  hub = undefined;
  expect(childPidsOf(process.pid)).toEqual([]);
});

describe('an upstream built on the 1.x SDK', () => {
  test('lists and answers like any other', async () => {
    hub = new UpstreamHub([fixture('old', 'v1-server.mjs')], { log: () => {} });
    await hub.start();
    expect(hub.catalog().tools).toEqual([
      expect.objectContaining({
        name: 'add',
        server: 'old',
        upstreamName: 'add',
        description: 'adds two numbers',
        allowed: true,
      }),
    ]);
    expect(await hub.callTool('add', { a: 2, b: 40 })).toEqual({
      content: [{ type: 'text', text: '42' }],
      structuredContent: { sum: 42 },
    });
  });
});
