import { existsSync } from 'node:fs';
import { STOP_CHECK_INTERVAL_MS, STOP_FILE_NAME } from '../protocol/contract.js';

/** 100 ms: the most a stopped script's prelude may take to count its unsent calls before it too is interrupted. */
export const ENDING_COLLECT_MAX_MS = 100;

export interface InterruptPollHooks {
  readonly now: () => number;
  /** Nothing is polled before the script starts (while its VM is made and its catalog made ready). */
  readonly started: () => boolean;
  /** Once per STOP_CHECK_INTERVAL_MS while the script runs: the parent's liveness, stale output, what waits to be sent. */
  readonly check: (now: number) => void;
  /** Whether the parent has written the stop file (the child's cwd is its own directory). */
  readonly stopFileExists?: () => boolean;
}

/**
 * Whether QuickJS should interrupt the script, asked by it every few thousand instructions: once
 * a stop is requested (by the parent's message or its stop file), the script runs no further;
 * while the prelude counts a stopped script's unsent calls, it may run for ENDING_COLLECT_MAX_MS.
 */
export class InterruptPoll {
  private stopRequested = false;
  private lastCheck = 0;
  private collectingEndingSince: number | null = null;
  private readonly stopFileExists: () => boolean;

  constructor(private readonly hooks: InterruptPollHooks) {
    this.stopFileExists = hooks.stopFileExists ?? (() => existsSync(STOP_FILE_NAME));
  }

  get stopped(): boolean {
    return this.stopRequested;
  }

  requestStop(): void {
    this.stopRequested = true;
  }

  /** Runs `collect`, the prelude's count of a stopped script's unsent calls, which the stop must not interrupt for a while. */
  collectEnding<T>(collect: () => T): T {
    this.collectingEndingSince = this.hooks.now();
    try {
      return collect();
    } finally {
      this.collectingEndingSince = null;
    }
  }

  shouldInterrupt(): boolean {
    if (this.collectingEndingSince !== null) return this.hooks.now() - this.collectingEndingSince > ENDING_COLLECT_MAX_MS;
    if (this.stopRequested) return true;
    if (!this.hooks.started()) return false;
    const now = this.hooks.now();
    if (now - this.lastCheck < STOP_CHECK_INTERVAL_MS) return false;
    this.lastCheck = now;
    this.hooks.check(now);
    if (this.stopFileExists()) this.stopRequested = true;
    return this.stopRequested;
  }
}
