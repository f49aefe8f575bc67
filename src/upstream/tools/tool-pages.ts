/**
 * An upstream's `tools/list`, every page of it, following `nextCursor`, each tool checked on its
 * own: one whose schema can't be used is kept with a placeholder and a note, and logged
 * (tool-admission.ts). A cursor that repeats or never ends breaks the listing.
 */
import type { Client } from '@modelcontextprotocol/client';
import * as z from 'zod';
import { describeSize, faultOf, type AnswerFault } from '../transport/answer-check.js';
import { READ_LIMIT_RULE } from '../transport/read-limit.js';
import { admitTools, type ListedTool } from './tool-admission.js';
import { Logger, type Log } from '../../support/log.js';

/** `tools/list` pages followed before the listing counts as broken (a cursor that never ends). */
export const TOOLS_LIST_MAX_PAGES = 100;

/**
 * A page of tools/list as the SDK is asked to check it: the tools themselves are checked one by one
 * (tool-admission.ts), since the SDK's check of a whole page recurses through every schema.
 */
const TOOLS_PAGE = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

export interface ToolPagesOptions {
  /** The upstream's name in the config, for the log. */
  readonly server: string;
  /** Each page's own timeout. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly log: Log;
  /** Tools with broken `x-mcp-header` marks are left out (tool-admission.ts). */
  readonly checkParamHeaders?: boolean;
}

/** Every tool the upstream lists; none when it declared no tools capability. */
export async function listToolPages(client: Client, options: ToolPagesOptions): Promise<ListedTool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: ListedTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < TOOLS_LIST_MAX_PAGES; page++) {
    let result: z.infer<typeof TOOLS_PAGE>;
    try {
      result = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, TOOLS_PAGE, {
        timeout: options.timeoutMs,
        ...(options.signal !== undefined ? { signal: options.signal } : {}),
      });
    } catch (error) {
      const fault = faultOf(error);
      if (fault === undefined) throw error;
      throw new Error(`it answered tools/list with ${describeFault(fault)}`, { cause: error });
    }
    const admitted = admitTools(result.tools, { checkParamHeaders: options.checkParamHeaders === true });
    for (const problem of admitted.problems) Logger.of(options.log).child(`upstream "${options.server}"`).warn(`${problem}`);
    tools.push(...admitted.tools);
    if (result.nextCursor === undefined) return tools;
    if (seen.has(result.nextCursor)) throw new Error(`tools/list sent the cursor ${JSON.stringify(result.nextCursor)} twice`);
    seen.add(result.nextCursor);
    cursor = result.nextCursor;
  }
  throw new Error(`tools/list did not end within ${TOOLS_LIST_MAX_PAGES} pages`);
}

/** What an answer to tools/list was, when it couldn't be used. */
function describeFault(fault: AnswerFault): string {
  return fault.kind === 'invalid'
    ? `something that isn't a result (${fault.detail})`
    : `a message of ${describeSize(fault)}, past the ${fault.limit} bytes read from an upstream (${READ_LIMIT_RULE})`;
}
