/** Catalog entries as the hub lists them, for tests of what happens to a call of one. */
import type { CatalogTool } from '../../src/catalog/types.js';

/** `items`' delete_item, annotated destructive, so its calls ask a person; `extra` changes what a test needs. */
export function askingTool(extra: Partial<CatalogTool> = {}): CatalogTool {
  return {
    name: 'delete_item',
    server: 'items',
    upstreamName: 'delete_item',
    description: 'deletes an item',
    inputSchema: { type: 'object' },
    annotations: { destructiveHint: true },
    allowed: true,
    approval: 'ask',
    approvalWhy: 'destructiveHint',
    ...extra,
  };
}
