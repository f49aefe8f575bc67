/**
 * One page of a list merged across upstreams (prompts, resources, resource templates), in config
 * order, filled across upstreams up to MERGED_PAGE_SIZE items: a client that reads only the first
 * page (several do) sees every upstream's items while they fit. Our cursor names where the next
 * page starts: an upstream, that upstream's own cursor, and how many of that upstream page's items
 * were already given.
 */
import { ProtocolError, ProtocolErrorCode, type ResultTypeMap } from '@modelcontextprotocol/client';
import { quoteInput } from '../../support/echo.js';
import type { Upstream } from '../connection/upstream.js';

/** 100: items in one page of a merged list; past it the page ends with a nextCursor. */
export const MERGED_PAGE_SIZE = 100;

/**
 * 100: upstream pages read to fill one merged page; past them the page ends, shorter, with a
 * nextCursor where it stopped, so an upstream of many empty pages can't hold one request long.
 */
export const MERGED_PAGE_MAX_READS = 100;

/** The merged lists, and the field of each method's result that holds its items. */
const LIST_ITEMS = {
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
} as const;

type ListMethod = keyof typeof LIST_ITEMS;
type ItemsOf<M extends ListMethod> = ResultTypeMap[M][(typeof LIST_ITEMS)[M] & keyof ResultTypeMap[M]];

/** Where the next page starts: the upstream by its config name, its cursor (none: its first page), and items of that page already given. */
interface PagePosition {
  readonly server: string;
  readonly cursor?: string;
  readonly skip?: number;
}

export interface PageSource<M extends ListMethod> {
  readonly method: M;
  /** Whether this upstream, ready, takes part in the list (it offers the capability). */
  readonly takesPart: (upstream: Upstream) => boolean;
  /** The page's items as our client sees them (renamed, filtered by policy). */
  readonly shape: (upstream: Upstream, items: ItemsOf<M>) => ItemsOf<M>;
}

/**
 * The page at `cursor` (absent: the first), with our cursor to the next one only when there is
 * more. An upstream that is not ready is passed over: its items are missing until it is back (a
 * list_changed says so).
 */
export async function mergedPage<M extends ListMethod>(
  upstreams: readonly Upstream[],
  cursor: string | undefined,
  signal: AbortSignal | undefined,
  source: PageSource<M>,
): Promise<ResultTypeMap[M]> {
  const key = LIST_ITEMS[source.method];
  const taking = upstreams.filter((upstream) => upstream.readySession() !== undefined && source.takesPart(upstream));
  let at: PagePosition | undefined = cursor === undefined ? taking[0] && { server: taking[0].name } : decodeCursor(cursor);
  let index = at === undefined ? -1 : taking.findIndex((upstream) => upstream.name === at!.server);
  if (at !== undefined && index === -1) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `the cursor's upstream "${at.server}" is no longer serving this list; list again from the start (no cursor)`,
    );
  }
  const items: unknown[] = [];
  for (let reads = 0; at !== undefined; reads++) {
    // Full at the end of an upstream page: the next page starts at `at` as it is.
    if (reads === MERGED_PAGE_MAX_READS || items.length === MERGED_PAGE_SIZE) break;
    const upstream = taking[index]!;
    // Gone since the page began: the page ends here, and the cursor names it to say so.
    const session = upstream.readySession();
    if (session === undefined) break;
    const page = (await session.forward(source.method, at.cursor === undefined ? {} : { cursor: at.cursor }, signal)) as {
      readonly nextCursor?: string;
    } & Record<string, unknown>;
    const shaped = source.shape(upstream, page[key]) as unknown[];
    const rest = shaped.slice(at.skip ?? 0);
    const room = MERGED_PAGE_SIZE - items.length;
    if (rest.length > room) {
      // The page is full and this upstream page has more: the next page starts inside it.
      items.push(...rest.slice(0, room));
      at = { ...at, skip: (at.skip ?? 0) + room };
      break;
    }
    items.push(...rest);
    if (page.nextCursor !== undefined) at = { server: upstream.name, cursor: page.nextCursor };
    else at = taking[++index] && { server: taking[index]!.name };
  }
  return { [key]: items, ...(at !== undefined ? { nextCursor: encodeCursor(at) } : {}) } as unknown as ResultTypeMap[M];
}

function encodeCursor(position: PagePosition): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): PagePosition {
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    position = undefined;
  }
  const valid =
    typeof position === 'object' &&
    position !== null &&
    typeof (position as PagePosition).server === 'string' &&
    ['string', 'undefined'].includes(typeof (position as PagePosition).cursor) &&
    isSkip((position as PagePosition).skip);
  if (!valid) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `the cursor ${quoteInput(cursor)} is not one this server gave; pass the nextCursor of the previous page as it came, or list from the start`,
    );
  }
  return position as PagePosition;
}

function isSkip(skip: unknown): boolean {
  return skip === undefined || (Number.isSafeInteger(skip) && (skip as number) > 0);
}
