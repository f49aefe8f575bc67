/**
 * `completion/complete`, sent to the upstream of the prompt or resource template it refers to,
 * with the prompt's own name: a prompt by the name our client knows it by (prompt-routes.ts), a
 * template by its URI template as listed (resource-routes.ts).
 */
import { ProtocolError, ProtocolErrorCode, type CompleteRequest, type CompleteResult } from '@modelcontextprotocol/client';
import { quoteInput } from '../../support/echo.js';
import { readyOrRefuse, type PromptRoutes } from './prompt-routes.js';
import type { Upstream } from '../connection/upstream.js';

/** Which upstream listed this URI template (and its policy allows it), if any. */
export type TemplateOwner = (uriTemplate: string) => Upstream | undefined;

export class CompletionRoutes {
  constructor(
    private readonly prompts: PromptRoutes,
    private readonly templateOwner: TemplateOwner,
  ) {}

  async complete(params: CompleteRequest['params'], signal?: AbortSignal): Promise<CompleteResult> {
    const { ref } = params;
    if (ref.type === 'ref/prompt') {
      const { upstream, own } = await this.prompts.route(ref.name, signal);
      const session = this.offering(upstream, `completion for prompt ${quoteInput(ref.name)}`);
      return session.forward('completion/complete', { ...params, ref: { ...ref, name: own } }, signal);
    }
    const upstream = this.templateOwner(ref.uri);
    if (upstream === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `No upstream lists the resource template ${quoteInput(ref.uri)}; resources/templates/list names them, as written there`,
      );
    }
    return this.offering(upstream, `completion for resource template ${quoteInput(ref.uri)}`).forward(
      'completion/complete',
      params,
      signal,
    );
  }

  /** The upstream's session, when it is ready and offers completions. */
  private offering(upstream: Upstream, what: string) {
    const session = readyOrRefuse(upstream, what);
    if (upstream.offered?.completions !== true) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `${what}: upstream "${upstream.name}" does not offer completions (it declared no "completions" capability)`,
      );
    }
    return session;
  }
}
