/**
 * The upstreams' prompts as our client sees them: named as tools are (the prompt's own name with
 * one upstream, `<server>__<prompt>` with several), filtered by each entry's `prompts` policy,
 * listed page by page across upstreams, and each `prompts/get` sent to its upstream.
 */
import { ProtocolError, ProtocolErrorCode, type GetPromptResult, type ListPromptsResult } from '@modelcontextprotocol/client';
import { closestName } from '../../../common/closest-names.js';
import { isAllowedBy } from '../../config/tool-policy.js';
import { quoteInput } from '../../support/echo.js';
import { mergedPage } from './merged-pages.js';
import { scriptToolName, serverForName, TOOL_NAME_SEPARATOR } from '../tools/tool-names.js';
import type { Upstream } from '../connection/upstream.js';
import type { UpstreamInputRequired, UpstreamRound } from '../routing/round-trip.js';
import { logFailure } from '../../support/log.js';

/**
 * 10: `prompts/list` pages read from one upstream to check that a name our client sent is one it
 * lists (and to find a close name for one it doesn't); a prompt past them is unknown.
 */
export const PROMPT_LIST_MAX_PAGES = 10;

/** A prompt as one upstream offers it, and the name our client uses. */
export interface RoutedPrompt {
  readonly upstream: Upstream;
  /** Its name on its upstream. */
  readonly own: string;
}

export class PromptRoutes {
  constructor(private readonly upstreams: readonly Upstream[]) {}

  /** One page of every allowed prompt, in config order, renamed. */
  list(cursor: string | undefined, signal?: AbortSignal): Promise<ListPromptsResult> {
    return mergedPage(this.upstreams, cursor, signal, {
      method: 'prompts/list',
      takesPart: (upstream) => upstream.offered?.prompts === true,
      shape: (upstream, prompts) =>
        prompts
          .filter((prompt) => allowsPrompt(upstream, prompt.name))
          .map((prompt) => ({ ...prompt, name: this.nameOf(upstream, prompt.name) })),
    });
  }

  /** Gets the prompt by our name from its upstream; an unknown or denied name is -32602, with a close name when there is one. */
  async get(name: string, args: Record<string, string> | undefined, signal?: AbortSignal): Promise<GetPromptResult> {
    const { upstream, own } = await this.route(name, signal);
    const session = readyOrRefuse(upstream, `prompt ${quoteInput(name)}`);
    return session.forward('prompts/get', { name: own, ...(args !== undefined ? { arguments: args } : {}) }, signal);
  }

  /**
   * One round of a 2026-07-28 client's prompts/get (round-trip.ts): from an upstream that speaks
   * that revision, its `input_required` comes back as it sent it; from a 2025 one, as get.
   */
  async getRound(
    name: string,
    args: Record<string, string> | undefined,
    round: UpstreamRound,
    signal?: AbortSignal,
  ): Promise<GetPromptResult | UpstreamInputRequired> {
    const { upstream, own } = await this.route(name, signal);
    const session = readyOrRefuse(upstream, `prompt ${quoteInput(name)}`);
    const params = { name: own, ...(args !== undefined ? { arguments: args } : {}) };
    if (!session.speaksCurrentRevision) return session.forward('prompts/get', params, signal);
    return session.getPromptRound(params, round, signal);
  }

  /**
   * The upstream and own name for our name, for prompts/get and completion/complete; -32602 when
   * none has it. The name must be one the upstream lists, exactly: an upstream that also answers
   * `P` or `p ` for its prompt `p` would otherwise be sent a name the `prompts` policy never saw.
   */
  async route(name: string, signal?: AbortSignal): Promise<RoutedPrompt> {
    const server = serverForName(
      name,
      this.upstreams.map((upstream) => upstream.name),
    );
    const upstream = this.upstreams.find((candidate) => candidate.name === server);
    if (upstream === undefined || upstream.offered?.prompts === false) throw await this.unknown(name, signal);
    const own = this.upstreams.length > 1 ? name.slice(upstream.name.length + TOOL_NAME_SEPARATOR.length) : name;
    if (!allowsPrompt(upstream, own)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Prompt ${quoteInput(name)} is not allowed: the config's "prompts" policy for upstream "${upstream.name}" leaves it out`,
      );
    }
    readyOrRefuse(upstream, `prompt ${quoteInput(name)}`);
    const listed = await this.ownNames(upstream, signal).catch((error: unknown) => {
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `prompt ${quoteInput(name)} can't be served now: listing upstream "${upstream.name}"'s prompts, to check the name, failed (${error instanceof Error ? error.message : String(error)}); try again later`,
      );
    });
    if (!listed.includes(own)) throw await this.unknown(name, signal);
    return { upstream, own };
  }

  private nameOf(upstream: Upstream, own: string): string {
    return scriptToolName(this.upstreams.length > 1, { server: upstream.name, tool: own });
  }

  /** -32602 for a name no upstream offers, naming the closest allowed prompt when one is within two edits. */
  private async unknown(name: string, signal?: AbortSignal): Promise<ProtocolError> {
    const known: string[] = [];
    for (const upstream of this.upstreams) {
      if (upstream.readySession() === undefined || upstream.offered?.prompts !== true) continue;
      const own = await this.ownNames(upstream, signal).catch((error: unknown) => {
        logFailure(`listing upstream "${upstream.name}"'s prompts`)(error);
        return [];
      });
      known.push(...own.filter((prompt) => allowsPrompt(upstream, prompt)).map((prompt) => this.nameOf(upstream, prompt)));
    }
    const close = closestName(name, known);
    const hint =
      close !== null
        ? `; did you mean "${close}"?`
        : known.length > 0
          ? '; prompts/list names them'
          : '; no upstream offers prompts';
    return new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt ${quoteInput(name)}${hint}`);
  }

  /** The upstream's own prompt names, every page (up to PROMPT_LIST_MAX_PAGES). */
  private async ownNames(upstream: Upstream, signal?: AbortSignal): Promise<string[]> {
    const session = upstream.readySession();
    if (session === undefined) return [];
    const names: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < PROMPT_LIST_MAX_PAGES; page++) {
      const result = await session.forward('prompts/list', cursor === undefined ? {} : { cursor }, signal);
      names.push(...result.prompts.map((prompt) => prompt.name));
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    return names;
  }
}

/** Whether the entry's `prompts` policy lets our client see and get this prompt (its own name). */
export function allowsPrompt(upstream: Upstream, own: string): boolean {
  return isAllowedBy(upstream.spec.promptPolicy ?? {}, own);
}

/** The upstream's live session, or -32603 saying why there is none (still starting, down, restarting). */
export function readyOrRefuse(upstream: Upstream, what: string) {
  const session = upstream.readySession();
  if (session !== undefined) return session;
  throw new ProtocolError(
    ProtocolErrorCode.InternalError,
    `${what} can't be served now: upstream "${upstream.name}" is ${upstream.state === 'down' ? 'down' : upstream.state === 'closed' ? 'closed' : 'starting'} (${upstream.describeState()}); try again later`,
  );
}
