/**
 * The SDK's `Server`, each request it handles in a server span (telemetry): `resources/read`,
 * `prompts/get summary`, `tools/list`, `initialize`, ... through the SDK's hook for wrapping
 * handlers, so a handler registered anywhere (a session's own, the Tasks extension's) is traced.
 * With tokenize on, the transport it connects to is its client's tokenizing one
 * (tokens/tokenizing-transport.ts): everything it sends passes there, whoever sends it.
 */
import {
  Server,
  type Implementation,
  type JSONRPCRequest,
  type Result,
  type ServerContext,
  type ServerOptions,
  type Transport,
} from '@modelcontextprotocol/server';
import { traceServerRequest } from '../telemetry/trace-server-request.js';
import type { ScopeTokens } from '../tokenize/tokenizer.js';
import { TokenizingTransport } from './tokens/tokenizing-transport.js';

type Handler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

export class TracedServer extends Server {
  constructor(
    info: Implementation,
    options: ServerOptions,
    /** The client's tokens; absent when tokenize is off. */
    private readonly tokens?: ScopeTokens,
  ) {
    super(info, options);
  }

  override connect(transport: Transport): Promise<void> {
    return super.connect(this.tokens === undefined ? transport : new TokenizingTransport(transport, this.tokens));
  }

  protected override _wrapHandler(method: string, handler: Handler): Handler {
    const wrapped = super._wrapHandler(method, handler);
    // Its handler opens its own span, whose context the script or the call it starts is given (server-surface.ts).
    if (method === 'tools/call') return wrapped;
    return (request, ctx) =>
      traceServerRequest(method, request.params, () => wrapped(request, ctx), {
        requestId: ctx.mcpReq.id,
        ...(ctx.sessionId !== undefined ? { sessionId: ctx.sessionId } : {}),
      });
  }
}
