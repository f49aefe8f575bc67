/**
 * How much of the child's V8 stack each deep path needs before QuickJS's own limit trips: for
 * each path, the least `--stack-size` at which QuickJS (not V8) runs out, with QuickJS's limit as
 * the server sets it (src/script-host/stack-budget.ts), found by bisection in fresh processes.
 * The margin is the child's V8 stack over that need; the budget asks for 1.5 at least.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/support/package-root.js';
import { stackBudget } from '../src/script-host/stack-budget.js';
import type { BenchContext, Row } from './report.js';
import { DEEP_PATHS } from './stack-probe.js';

const PROBE = join(PACKAGE_ROOT, 'dist', 'bench', 'stack-probe.js');

export interface StackNeed {
  readonly path: string;
  /** V8 stack (KiB) the path needs before QuickJS trips, at the server's QuickJS limit. */
  readonly neededKiB: number;
  /** The child's V8 stack (KiB). */
  readonly childKiB: number;
}

function firstToRunOut(path: string, v8KiB: number, quickjsBytes: number): string {
  return execFileSync(process.execPath, [`--stack-size=${v8KiB}`, PROBE, path, String(quickjsBytes)], { encoding: 'utf8' });
}

/** Bisects the V8 stack each path needs; with `quick`, only checks that QuickJS trips first at the child's stack. */
export function measureStackNeeds(quick: boolean): StackNeed[] {
  const budget = stackBudget();
  const childKiB = budget.v8StackKiB ?? 984;
  const needs: StackNeed[] = [];
  for (const path of Object.keys(DEEP_PATHS)) {
    if (firstToRunOut(path, childKiB, budget.quickjsStackBytes) !== 'quickjs') {
      needs.push({ path, neededKiB: Number.POSITIVE_INFINITY, childKiB });
      continue;
    }
    if (quick) {
      needs.push({ path, neededKiB: Number.NaN, childKiB });
      continue;
    }
    let enough = childKiB;
    let short = 64;
    while (enough - short > 16) {
      const middle = Math.floor((enough + short) / 2);
      if (firstToRunOut(path, middle, budget.quickjsStackBytes) === 'quickjs') enough = middle;
      else short = middle;
    }
    needs.push({ path, neededKiB: enough, childKiB });
  }
  return needs;
}

/** Rows: each deep path's need of V8 stack against the child's stack; quick mode only checks QuickJS trips first. */
export function measureStack(ctx: BenchContext): Row[] {
  ctx.log('V8 stack needed by deep paths…');
  const rows: Row[] = [];
  for (const need of measureStackNeeds(ctx.quick)) {
    if (need.neededKiB === Number.POSITIVE_INFINITY)
      throw new Error(`${need.path}: the host's stack runs out before QuickJS's limit`);
    if (ctx.quick) continue;
    rows.push({
      name: `V8 stack needed: ${need.path}`,
      value: need.neededKiB,
      unit: 'KiB',
      floorName: "the child's V8 stack",
      floor: need.childKiB,
      goal: { text: '≤ 0.67 × (a margin of 1.5)', met: (value, floor) => value <= floor / 1.5 },
    });
  }
  return rows;
}
