/**
 * An upstream spoken to in 2026-07-28 sends its list changes only on a `subscriptions/listen`
 * stream, not unasked as 2025 does. Opened at start for what the upstream says changes (tools,
 * prompts, resources); the notifications it carries reach the handlers session-clients.ts set, as
 * the 2025 ones do. The client's close ends the stream.
 */
import type { Client, McpSubscription, SubscriptionFilter } from '@modelcontextprotocol/client';

/** The listen stream for the lists `client`'s upstream says change; none in 2025, or when none does. */
export async function listenForChanges(
  client: Client,
  options: { readonly timeoutMs: number; readonly signal: AbortSignal },
): Promise<McpSubscription | undefined> {
  if (client.getProtocolEra() !== 'modern') return undefined;
  const offered = client.getServerCapabilities() ?? {};
  const filter: SubscriptionFilter = {
    ...(offered.tools?.listChanged === true ? { toolsListChanged: true } : {}),
    ...(offered.prompts?.listChanged === true ? { promptsListChanged: true } : {}),
    ...(offered.resources?.listChanged === true ? { resourcesListChanged: true } : {}),
  };
  if (Object.keys(filter).length === 0) return undefined;
  return client.listen(filter, { timeout: options.timeoutMs, signal: options.signal });
}
