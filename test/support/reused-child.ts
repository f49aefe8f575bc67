import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import type { ToolEntry } from '../../protocol/contract.js';
import { ScriptChild } from '../../src/script-host/script-child.js';
import { Script } from '../../src/script-host/script.js';
import type { ScriptReturn } from '../../src/script-host/types.js';
import { TEST_LIMITS, apisOf, toolEntries, type TestApis } from './scripts.js';

export interface RunOptions extends TestApis {
  readonly tools?: ToolEntry[];
  readonly onOutput?: (text: string) => void;
}

/**
 * One real script child driven as the pool drives one it reuses: a script through a lease, its
 * ending, a reset, the next script through a new lease. The test kills it (close()).
 */
export class ReusedChild {
  readonly child: ScriptChild;

  /** `onEnding` is told of each script's ending as it is read, as the pool is; by default the child is held, and reset() or close() decides. */
  constructor(onEnding: (child: ScriptChild) => void = () => {}) {
    this.child = new ScriptChild({
      memoryMaxBytes: TEST_LIMITS.memoryMaxBytes,
      notifyMax: TEST_LIMITS.notifyMax,
      showMaxBytes: TEST_LIMITS.showMaxBytes,
      warm: true,
      log: () => {},
      onEnding,
    });
  }

  /** Starts `code` on the child as its next script. */
  start(code: string, options: RunOptions = {}): Script {
    return new Script(this.child.lease(), {
      id: `s${this.child.scripts + 1}`,
      code,
      tools: options.tools ?? toolEntries('echo'),
      apis: apisOf(options),
      ...(options.onOutput ? { onOutput: options.onOutput } : {}),
      limits: TEST_LIMITS,
    });
  }

  /** Runs `code` to its ending. */
  async run(code: string, options: RunOptions = {}): Promise<ScriptReturn> {
    const script = this.start(code, options);
    await script.ended;
    return script.observe(0);
  }

  /** Resets the child after a script that left it reusable, and waits for its fresh engine. */
  async reset(): Promise<void> {
    this.child.reset();
    await this.child.ready;
  }

  async close(): Promise<void> {
    this.child.kill();
    await this.child.gone;
  }
}

/**
 * Whether `pid`'s anonymous writable memory (its heaps and WebAssembly memories; not the files it
 * maps) holds `needle` anywhere: read through /proc/<pid>/mem, which a parent may read.
 */
export function processMemoryHolds(pid: number, needle: string): boolean {
  const target = Buffer.from(needle, 'latin1');
  const fd = openSync(`/proc/${pid}/mem`, 'r');
  try {
    for (const line of readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')) {
      const [range, perms, , , inode, path] = line.split(/\s+/);
      if (range === undefined || perms === undefined || !perms.startsWith('rw') || inode !== '0') continue;
      if (path !== undefined && path !== '' && path !== '[heap]') continue;
      const [start, end] = range.split('-').map((hex) => parseInt(hex, 16)) as [number, number];
      if (regionHolds(fd, start, end, target)) return true;
    }
    return false;
  } finally {
    closeSync(fd);
  }
}

/** 4 MiB: the chunk read at a time, overlapping by the needle's length so a match across chunks is found. */
const CHUNK_BYTES = 4 * 1024 * 1024;

function regionHolds(fd: number, start: number, end: number, needle: Buffer): boolean {
  const chunk = Buffer.alloc(CHUNK_BYTES);
  for (let at = start; at < end; at += CHUNK_BYTES - needle.length) {
    let read: number;
    try {
      read = readSync(fd, chunk, 0, Math.min(CHUNK_BYTES, end - at), at);
    } catch {
      // A region that changed or went since the maps were read.
      return false;
    }
    if (chunk.subarray(0, read).includes(needle)) return true;
    if (at + read >= end) return false;
  }
  return false;
}
