/**
 * One page of a list merged across upstreams (prompts, resources, resource templates), in config
 * order. Our cursor names the upstream and that upstream's own cursor, so a client pages through
 * each upstream's pages in turn and every upstream keeps its own pagination.
 */
import { ProtocolError, ProtocolErrorCode, type ResultTypeMap } from '@modelcontextprotocol/client';
import { quoteInput } from '../echo.js';
import type { Upstream } from './upstream.js';

/** The merged lists, and the field of each method's result that holds its items. */
const LIST_ITEMS = {
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
} as const;

type ListMethod = keyof typeof LIST_ITEMS;
type ItemsOf<M extends ListMethod> = ResultTypeMap[M][(typeof LIST_ITEMS)[M] & keyof ResultTypeMap[M]];

/** Where the next page comes from: the upstream by its config name, and its cursor (none: its first page). */
interface PagePosition {
  readonly server: string;
  readonly cursor?: string;
}

export interface PageSource<M extends ListMethod> {
  readonly method: M;
  /** Whether this upstream, ready, takes part in the list (it offers the capability). */
  readonly takesPart: (upstream: Upstream) => boolean;
  /** The page's items as our client sees them (renamed, filtered by policy). */
  readonly shape: (upstream: Upstream, items: ItemsOf<M>) => ItemsOf<M>;
}

/**
 * The page at `cursor` (absent: the first), with our cursor to the next one. An upstream that is
 * not ready is passed over: its items are missing until it is back (a list_changed says so).
 */
export async function mergedPage<M extends ListMethod>(
  upstreams: readonly Upstream[],
  cursor: string | undefined,
  signal: AbortSignal | undefined,
  source: PageSource<M>,
): Promise<ResultTypeMap[M]> {
  const key = LIST_ITEMS[source.method];
  const taking = upstreams.filter((upstream) => upstream.readySession() !== undefined && source.takesPart(upstream));
  const at = cursor === undefined ? { server: taking[0]?.name ?? '' } : decodeCursor(cursor);
  const index = taking.findIndex((upstream) => upstream.name === at.server);
  if (index === -1) {
    if (cursor === undefined) return { [key]: [] } as unknown as ResultTypeMap[M];
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `the cursor's upstream "${at.server}" is no longer serving this list; list again from the start (no cursor)`,
    );
  }
  const upstream = taking[index]!;
  const params = at.cursor === undefined ? {} : { cursor: at.cursor };
  const page = (await upstream.readySession()!.forward(source.method, params, signal)) as { nextCursor?: string };
  const items = (page as Record<string, unknown>)[key] as ItemsOf<M>;
  const next: PagePosition | undefined =
    page.nextCursor !== undefined
      ? { server: upstream.name, cursor: page.nextCursor }
      : taking[index + 1] !== undefined
        ? { server: taking[index + 1]!.name }
        : undefined;
  const shaped = { [key]: source.shape(upstream, items), ...(next !== undefined ? { nextCursor: encodeCursor(next) } : {}) };
  return shaped as unknown as ResultTypeMap[M];
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
    ['string', 'undefined'].includes(typeof (position as PagePosition).cursor);
  if (!valid) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `the cursor ${quoteInput(cursor)} is not one this server gave; pass the nextCursor of the previous page as it came, or list from the start`,
    );
  }
  return position as PagePosition;
}
