/**
 * How much of one message is read from an upstream. A script can take a result up to a third of
 * its memory (`resultMaxBytes`); a message past that plus some headroom is skipped unread, and a
 * response among them fails just its call, as ResultTooLarge, while the connection stays up.
 */
import { formatBytes } from '../../../common/format-numbers.js';
import { resultMaxBytes } from '../../../protocol/contract.js';

/** 1 MiB: what an upstream's message may hold beyond the result cap: its JSON-RPC envelope, and escapes the result's own JSON may not need. */
export const UPSTREAM_READ_HEADROOM_BYTES = 1024 * 1024;

/** The longest message read from an upstream: 43.7 MiB with the default memoryMaxBytes (128 MiB). */
export function upstreamReadLimit(memoryMaxBytes: number): number {
  return resultMaxBytes(memoryMaxBytes) + UPSTREAM_READ_HEADROOM_BYTES;
}

/** How the limit is made, for a message that names it. */
export const READ_LIMIT_RULE = `a third of memoryMaxBytes, plus ${formatBytes(UPSTREAM_READ_HEADROOM_BYTES)}`;
