/**
 * Whether a message speaks the 2026-07-28 revision: its params carry the per-request envelope,
 * `_meta` naming a protocol version. Both transports route on it: over stdio the request gate
 * skips the 2025 lifecycle for it, over HTTP it is served sessionless (sessionless.ts).
 */
import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';

/** Whether a message's params claim the 2026-07-28 revision's per-request envelope (`_meta` with a protocol version). */
export function carriesRequestEnvelope(params: unknown): boolean {
  if (typeof params !== 'object' || params === null) return false;
  const meta = (params as { _meta?: unknown })._meta;
  return (
    typeof meta === 'object' && meta !== null && typeof (meta as Record<string, unknown>)[PROTOCOL_VERSION_META_KEY] === 'string'
  );
}
