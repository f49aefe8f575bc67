/**
 * Which MCP revision an upstream is opened with. Every client we open toward an upstream probes
 * with `server/discover` (2026-07-28) and falls back to the 2025 `initialize` handshake when the
 * upstream gives no sign of the current revision, so an upstream that serves only 2026-07-28 and
 * one that serves only 2025 both work. A stdio upstream is probed in place, on the process that
 * then serves (stdio-transport.ts is not the SDK's StdioClientTransport, whose probe costs a
 * second spawn); docs/upstreams.md gives what the probe costs.
 */
import {
  SdkError,
  SdkErrorCode,
  type Client,
  type ConnectOptions,
  type VersionNegotiationOptions,
} from '@modelcontextprotocol/client';
import type { UpstreamSpec } from '../spec.js';

export const UPSTREAM_VERSION_NEGOTIATION: VersionNegotiationOptions = { mode: 'auto' };

/** The era verdict that skips the probe, for an upstream opened `unprobed` (skipsProbeNext). */
export const LEGACY_ONLY: NonNullable<ConnectOptions['prior']> = { kind: 'legacy' };

/** The revision `client` speaks with its upstream, for the log: `2026-07-28`, or the one `initialize` agreed on. */
export function revisionOf(client: Client): string {
  return client.getNegotiatedProtocolVersion() ?? 'none (not connected)';
}

/**
 * A stdio upstream that ended while it was probed: with the 2025 fallback allowed, that is the one
 * way the SDK's negotiation fails on stdio with this code and no cause of its own.
 */
export function endedInProbe(spec: UpstreamSpec, error: unknown): boolean {
  return (
    spec.transport === 'stdio' &&
    error instanceof SdkError &&
    error.code === SdkErrorCode.EraNegotiationFailed &&
    error.cause === undefined
  );
}

/**
 * Whether an upstream's next start skips the probe, after a start (probed or not, `unprobed`)
 * failed with `error`. Yes once a start ended in the probe: some SDKs end the process on any
 * request before `initialize`, so such a server speaks only 2025 and each probe would end it. No
 * again once an unprobed start fails other than by ending: it may speak only 2026-07-28 and have
 * ended in the probe for another reason. Each start stays one spawn.
 */
export function skipsProbeNext(spec: UpstreamSpec, unprobed: boolean, error: unknown): boolean {
  if (!unprobed) return endedInProbe(spec, error);
  return error instanceof SdkError && (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected);
}
