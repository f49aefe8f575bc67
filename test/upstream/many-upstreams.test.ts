import { afterEach, expect, test } from 'vitest';
import { MAX_UPSTREAMS } from '../../src/config/parse-config.js';
import { UpstreamHub } from '../../src/upstream/hub.js';
import type { UpstreamSpec } from '../../src/upstream/spec.js';
import { freePort } from './specs.js';

let hub: UpstreamHub | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

// Regression: every upstream's start or failure rebuilt the catalog and the resource routes over
// all upstreams, so a config of N entries cost N rebuilds of N: 1,000 entries took 36 s to start.
test('upstreams that change state together cost one catalog rebuild between them, not one each', async () => {
  const port = await freePort();
  const specs: UpstreamSpec[] = Array.from({ length: MAX_UPSTREAMS }, (_, i) => ({
    name: `remote${i}`,
    transport: 'http',
    url: `http://127.0.0.1:${port}/mcp`,
    headers: {},
    policy: {},
  }));
  hub = new UpstreamHub(specs, { log: () => {} });
  let rebuilds = 0;
  hub.onCatalogChanged(() => rebuilds++);
  await hub.start();
  // Each upstream failed, and its note says so: the catalog is whole after start.
  const notes = hub.tools().upstreamNotes ?? [];
  expect(notes).toHaveLength(MAX_UPSTREAMS);
  expect(notes.every((note) => note.includes('down'))).toBe(true);
  expect(hub.upstreamStatus().every((status) => status.state === 'down')).toBe(true);
  // One per upstream before; the failures arrive in a few turns of the event loop.
  expect(rebuilds).toBeLessThan(MAX_UPSTREAMS / 4);
});
