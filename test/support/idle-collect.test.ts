import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  IDLE_COLLECT_GROWTH_BYTES,
  IDLE_COLLECTIONS,
  IDLE_UTILIZATION,
  IdleCollector,
  processProbe,
  type IdleProbe,
} from '../../src/support/idle-collect.js';

/** A probe whose loop use and heap the test sets; collecting brings the heap to `live`. */
function fakeProbe(start: number): IdleProbe & { utilization: number; heap: number; live: number; collections: number } {
  const probe = {
    utilization: 0,
    heap: start,
    live: start,
    collections: 0,
    loopUtilization: () => probe.utilization,
    heapUsed: () => probe.heap,
    collect: () => {
      probe.collections += 1;
      probe.heap = probe.live;
    },
  };
  return probe;
}

describe('IdleCollector', () => {
  const MiB = 2 ** 20;

  it('collects at the idle checks that follow work, IDLE_COLLECTIONS of them, and reports the heap', () => {
    const probe = fakeProbe(20 * MiB);
    const reports: [number, number][] = [];
    const collector = new IdleCollector(probe, (_ms, before, after) => reports.push([before, after]));
    probe.utilization = IDLE_UTILIZATION;
    probe.heap = 60 * MiB;
    probe.live = 21 * MiB;
    collector.check();
    collector.check();
    // Busy: no collection, however much the heap grew.
    expect(probe.collections).toBe(0);
    probe.utilization = IDLE_UTILIZATION / 2;
    for (let check = 0; check < IDLE_COLLECTIONS + 3; check++) collector.check();
    expect(probe.collections).toBe(IDLE_COLLECTIONS);
    expect(reports[0]).toEqual([60 * MiB, 21 * MiB]);
  });

  it('owes the collections again after new work, even one that came between them', () => {
    const probe = fakeProbe(20 * MiB);
    const collector = new IdleCollector(probe, () => {});
    probe.utilization = 0.5;
    collector.check();
    probe.utilization = 0;
    collector.check();
    expect(probe.collections).toBe(1);
    probe.utilization = 0.5;
    collector.check();
    probe.utilization = 0;
    for (let check = 0; check < IDLE_COLLECTIONS + 3; check++) collector.check();
    expect(probe.collections).toBe(1 + IDLE_COLLECTIONS);
  });

  it('collects once when the heap grew with the loop never busy, and an idle server not again', () => {
    const probe = fakeProbe(20 * MiB);
    const collector = new IdleCollector(probe, () => {});
    collector.check();
    expect(probe.collections).toBe(0);
    probe.heap = 20 * MiB + IDLE_COLLECT_GROWTH_BYTES - 1;
    collector.check();
    expect(probe.collections).toBe(0);
    probe.heap = 20 * MiB + IDLE_COLLECT_GROWTH_BYTES;
    probe.live = 22 * MiB;
    collector.check();
    collector.check();
    collector.check();
    expect(probe.collections).toBe(1);
    // Growth counts from what the last collection left.
    probe.heap = 22 * MiB + IDLE_COLLECT_GROWTH_BYTES;
    collector.check();
    expect(probe.collections).toBe(2);
  });
});

describe('the process probe', () => {
  it("collects this process's garbage without --expose-gc on the command line", () => {
    const probe = processProbe();
    // Objects made and dropped inside the function: garbage once it returns.
    const made = (): number => Array.from({ length: 200_000 }, (_, i) => ({ i, text: `item ${i}` })).length;
    expect(made()).toBe(200_000);
    const held = probe.heapUsed();
    probe.collect();
    // 200,000 small objects are well over 8 MiB; all of it is garbage once dropped.
    expect(probe.heapUsed()).toBeLessThan(held - 8 * 2 ** 20);
    expect(probe.loopUtilization()).toBeGreaterThanOrEqual(0);
  });

  it("leaves V8's flags as they were: its code caches (the server's compile cache) stay valid", () => {
    // In a process of its own: this one's flags may have been set by an earlier test.
    const built = new URL('../../dist/src/support/idle-collect.js', import.meta.url).href;
    const check = `const v8 = require('node:v8');
      const before = v8.cachedDataVersionTag();
      import(${JSON.stringify(built)}).then(({ processProbe }) => {
        processProbe().collect();
        process.stdout.write(String(v8.cachedDataVersionTag() === before));
      });`;
    expect(execFileSync(process.execPath, ['-e', check], { encoding: 'utf8' })).toBe('true');
  });
});
