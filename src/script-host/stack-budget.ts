/**
 * How deep a script may recurse: QuickJS's own stack limit must trip before the host's, with
 * margin, so that deep recursion, deep JSON and deep values reach the script as a RangeError it
 * can catch, never as a failure of the engine.
 *
 * Two stacks grow with every level of a script's recursion: QuickJS's (C, in the WebAssembly
 * memory), which QuickJS checks against its limit, and the host's machine stack, on which every
 * WebAssembly frame also sits, which V8 checks against `--stack-size`. Past V8's limit the
 * engine is unwound mid-call and the script can't go on; past QuickJS's, the script gets its
 * RangeError. So the child is started with a larger V8 stack than Node's default, and QuickJS's
 * limit is set from it, at the worst ratio between the two measured over QuickJS's recursive
 * paths (bench/stack-depth.ts), times a margin, less room for the host functions a script may
 * call at its deepest point.
 */
import { readFileSync } from 'node:fs';

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * 16: bytes of V8 stack per byte of QuickJS stack at worst. Measured (Node 20, Liftoff) over 40
 * recursive paths: nested parentheses in source 14.5, nested object literals 13.9, JSON.stringify
 * of deep values 12.6, JSON.parse 7.9, plain recursion 1.7. `npm run bench` measures the main
 * ones again against the child's stack (bench/stack-depth.ts).
 */
export const V8_PER_QUICKJS_STACK = 16;

/** 1.5: the margin on that ratio, for paths not measured. */
export const STACK_RATIO_MARGIN = 1.5;

/** 512 KiB: V8 stack kept for the host functions a script calls at its deepest point. */
export const HOST_STACK_HEADROOM_BYTES = 512 * KiB;

/** 6 MiB: the V8 stack a script's child asks for, when the system's stack limit allows it. */
export const CHILD_V8_STACK_BYTES = 6 * MiB;

/** 2 MiB: of the system's stack limit, left to what runs below V8 (Node's start, native frames). */
const SYSTEM_STACK_RESERVE_BYTES = 2 * MiB;

/** 984 KiB: V8's default stack on every platform, and what a child gets when the system's limit is unknown. */
const V8_DEFAULT_STACK_BYTES = 984 * KiB;

/** 512 KiB: the most QuickJS takes (quickjs-wasi's MAX_STACK_SIZE, half of its 1 MiB stack). */
const QUICKJS_STACK_MAX_BYTES = 512 * KiB;

/** 16 KiB: the least QuickJS limit worth running a script with. */
const QUICKJS_STACK_MIN_BYTES = 16 * KiB;

/**
 * 32 KiB: QuickJS's limit under Bun, whose engine (JavaScriptCore) takes no stack flag: its stack
 * ran out at 48–64 KiB of QuickJS stack on the parser's nesting paths (Bun 1.4.5), less the margin.
 * About 130 frames of plain recursion.
 */
export const BUN_QUICKJS_STACK_BYTES = 32 * KiB;

export interface StackBudget {
  /** V8's stack for the child, in KiB, for `--stack-size`; undefined to leave V8's default. */
  readonly v8StackKiB: number | undefined;
  /** QuickJS's stack limit (its maxStackSize), in bytes. */
  readonly quickjsStackBytes: number;
}

/** The budget for this machine: from the system's stack limit, as the child will inherit it. */
/** `systemLimitBytes`: null when unknown. */
export function stackBudget(systemLimitBytes: number | null = systemStackLimit()): StackBudget {
  if (process.versions.bun !== undefined) return { v8StackKiB: undefined, quickjsStackBytes: BUN_QUICKJS_STACK_BYTES };
  const v8Bytes =
    systemLimitBytes === null
      ? V8_DEFAULT_STACK_BYTES
      : Math.max(V8_DEFAULT_STACK_BYTES, Math.min(CHILD_V8_STACK_BYTES, systemLimitBytes - SYSTEM_STACK_RESERVE_BYTES));
  const quickjs = Math.floor((v8Bytes - HOST_STACK_HEADROOM_BYTES) / (V8_PER_QUICKJS_STACK * STACK_RATIO_MARGIN) / KiB) * KiB;
  return {
    v8StackKiB: v8Bytes === V8_DEFAULT_STACK_BYTES ? undefined : Math.floor(v8Bytes / KiB),
    quickjsStackBytes: Math.min(QUICKJS_STACK_MAX_BYTES, Math.max(QUICKJS_STACK_MIN_BYTES, quickjs)),
  };
}

/**
 * The main thread's stack limit, which a child inherits: the soft RLIMIT_STACK on Linux (from
 * /proc), 8 MiB on macOS (its main-thread default); unknown elsewhere.
 */
function systemStackLimit(): number | null {
  if (process.platform === 'darwin') return 8 * MiB;
  if (process.platform !== 'linux') return null;
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((text) => text.startsWith('Max stack size'));
    const soft = line?.slice('Max stack size'.length).trim().split(/\s+/)[0];
    if (soft === undefined) return null;
    return soft === 'unlimited' ? Number.POSITIVE_INFINITY : Number(soft);
  } catch {
    return null;
  }
}
