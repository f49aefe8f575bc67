import type { HostOutlet } from './outlet.js';

/** A block as the prelude copied it: only its base64 fields are read here. */
interface ShownBlock {
  readonly data?: string;
  readonly resource?: { readonly blob?: string };
}

/**
 * `show`: sends the blocks the prelude copied for the answer, within `showMaxBytes` of JSON (none
 * when it is 0); '' when sent (or the script has ended), else what the script is told.
 */
export function showBlocks(blocksJson: string, showMaxBytes: number, outlet: HostOutlet): string {
  if (showMaxBytes === 0) return 'show(x): show is off on this server (its showMaxBytes setting is 0)';
  const bytes = Buffer.byteLength(blocksJson, 'utf8');
  if (bytes > showMaxBytes) {
    return `show(x): the blocks are ${bytes} bytes of JSON, past the ${showMaxBytes} an answer may carry (the server's showMaxBytes); nothing was shown`;
  }
  const notBase64 = firstNotBase64(JSON.parse(blocksJson) as ShownBlock[]);
  if (notBase64 !== undefined) return `show(x): ${notBase64} is not base64; nothing was shown`;
  if (outlet.ended()) return '';
  outlet.send({ t: 'show', blocks: blocksJson });
  return '';
}

/**
 * The first base64 field of the blocks that is not base64 (`the data of block 2`), if any, by
 * atob's rule: the one the server checks them by (src/script-host/shown-blocks.ts, as the MCP SDK's Base64Schema), so that a script
 * learns it here rather than losing its answer.
 */
function firstNotBase64(blocks: readonly ShownBlock[]): string | undefined {
  for (const [index, block] of blocks.entries()) {
    for (const [field, value] of [
      ['data', block.data],
      ['resource.blob', block.resource?.blob],
    ] as const) {
      if (value === undefined) continue;
      try {
        atob(value);
      } catch {
        return `the ${field} of block ${index + 1}`;
      }
    }
  }
  return undefined;
}
