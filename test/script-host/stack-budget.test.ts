import { describe, expect, it } from 'vitest';
import {
  CHILD_V8_STACK_BYTES,
  HOST_STACK_HEADROOM_BYTES,
  STACK_RATIO_MARGIN,
  V8_PER_QUICKJS_STACK,
  stackBudget,
} from '../../src/script-host/stack-budget.js';

const KiB = 1024;
const MiB = 1024 * KiB;

describe("a script's stack budget", () => {
  it('asks for a 6 MiB V8 stack under the usual 8 MiB limit, and sets QuickJS from it with the margin and headroom', () => {
    const budget = stackBudget(8 * MiB);
    expect(budget.v8StackKiB).toBe(CHILD_V8_STACK_BYTES / KiB);
    expect(budget.quickjsStackBytes).toBe(234 * KiB);
    expect(budget.quickjsStackBytes * V8_PER_QUICKJS_STACK * STACK_RATIO_MARGIN + HOST_STACK_HEADROOM_BYTES).toBeLessThanOrEqual(
      CHILD_V8_STACK_BYTES,
    );
  });

  it('takes the same with no limit, and less under a smaller one, keeping 2 MiB for what runs below V8', () => {
    expect(stackBudget(Number.POSITIVE_INFINITY)).toEqual(stackBudget(8 * MiB));
    expect(stackBudget(4 * MiB)).toEqual({ v8StackKiB: 2048, quickjsStackBytes: 64 * KiB });
  });

  it("keeps V8's default when the limit is unknown or too small to raise it", () => {
    expect(stackBudget(null)).toEqual({ v8StackKiB: undefined, quickjsStackBytes: 19 * KiB });
    expect(stackBudget(2 * MiB)).toEqual({ v8StackKiB: undefined, quickjsStackBytes: 19 * KiB });
  });
});
