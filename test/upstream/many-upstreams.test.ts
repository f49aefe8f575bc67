import { afterEach, expect, test } from 'vitest';
import { MAX_UPSTREAMS } from '../../src/config/parse-config.js';
import { UpstreamHub } from '../../src/upstream/hub.js';
import { inMemorySpec } from './in-memory.js';

let hub: UpstreamHub | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

// Regression: every upstream's start or failure rebuilt the catalog and the resource routes over
// all upstreams, so a config of N entries cost N rebuilds of N: 1,000 entries took 36 s to start.
test('upstreams that change state together cost one catalog rebuild between them, not one each', async () => {
  const specs = Array.from({ length: MAX_UPSTREAMS }, (_, i) => inMemorySpec(`remote${i}`));
  hub = new UpstreamHub(specs, { log: () => {}, connect: () => Promise.reject(new Error('connect ECONNREFUSED')) });
  let rebuilds = 0;
  hub.events.on('catalog-changed', () => rebuilds++);
  await hub.start();
  // Each upstream failed, and its note says so: the catalog is whole after start.
  const notes = hub.catalog().upstreamNotes;
  expect(notes).toHaveLength(MAX_UPSTREAMS);
  expect(notes.every((note) => note.includes('down'))).toBe(true);
  expect(hub.upstreamStatus().every((status) => status.state === 'down')).toBe(true);
  // One per upstream before; the failures arrive in a few turns of the event loop.
  expect(rebuilds).toBeLessThan(MAX_UPSTREAMS / 4);
});
