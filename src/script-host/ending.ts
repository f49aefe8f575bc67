import { parseCountedJson } from '../../protocol/frames.js';
import { STOP_GRACE_MS } from './stop-sequence.js';
import type { ScriptStatus, StopReason } from './types.js';

/** Distinct names under unlisted upstreams' prefixes an ending's count of unsent calls may hold, beyond the catalog. */
const UNLISTED_NAMES_MAX = 1_000;

/** How a script ended, as its returns say it. */
export interface Ending {
  readonly status: Exclude<ScriptStatus, 'running'>;
  readonly value?: string;
  readonly error?: string;
}

/** What a stopped script's error says, for why it was stopped. */
export function stopMessage(reason: StopReason | null, lifetimeMs: number): string {
  switch (reason) {
    case 'lifetime':
      return `Stopped at its lifetime of ${lifetimeMs} ms (the server's scriptLifetimeMs).`;
    case 'watch-cancelled':
      return 'Stopped: the client cancelled the call that watched it before it had returned anything.';
    case 'shutdown':
      return 'Stopped: the server is shutting down.';
    default:
      return 'Stopped, as asked.';
  }
}

/** The ending of a stopped script whose child exited before saying so, and what it may lack if it had to be killed. */
export function stoppedAtExit(reason: StopReason, killed: boolean, lifetimeMs: number): Ending {
  const cut = killed
    ? ` It did not stop within ${STOP_GRACE_MS} ms and was killed: output from its last moments, and calls it made but never sent, may be missing.`
    : '';
  return { status: 'stopped', error: stopMessage(reason, lifetimeMs) + cut };
}

/**
 * An ending's count of calls never sent: a {name: count} object of names the script was given
 * (a tool's, or a resources call's), or null when it is anything else. Its values are counted
 * before it is parsed, up to two a name.
 */
export function parseUnsent(text: string, nameCount: number, given: (name: string) => boolean): Record<string, number> | null {
  const parsed = parseCountedJson(text, 2 * (nameCount + UNLISTED_NAMES_MAX) + 1)?.value;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  for (const [name, count] of Object.entries(parsed)) {
    if (!given(name) || !Number.isSafeInteger(count) || (count as number) < 0) return null;
  }
  return parsed as Record<string, number>;
}
